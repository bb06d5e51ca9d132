/**
 * The shared store of the API quota when several hosts serve (RATE_LIMIT_REDIS_URL): one Redis
 * (ioredis) client per process, used by rate-limiter-flexible's RateLimiterRedis, which counts with
 * one atomic Redis command per request. Without the setting, the quota stays counted in memory by
 * the host (its cluster primary), which needs no network round trip.
 *
 * A client that cannot reach Redis answers at once (no offline queue): the limiter then counts on
 * its insurance, the host's own counter (rate-limits.ts), so an unreachable Redis costs the quota's
 * sharing, never a request. Its loss and return are logged once each.
 */
import type { Redis } from 'ioredis';
import type { Logger } from '../logger';

const clients = new Map<string, Redis>();

export function quotaStore(url: string, logger?: Logger): Redis {
  let client = clients.get(url);
  if (client) return client;
  // Required here, not at the top: only a deployment with RATE_LIMIT_REDIS_URL needs ioredis (about
  // 2 MB of heap and 20 MB of resident memory in a process that never uses it).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Redis: RedisClient } = require('ioredis') as typeof import('ioredis');
  client = new RedisClient(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    // Reconnect forever, at most once a second.
    retryStrategy: (times) => Math.min(times * 100, 1_000),
  });
  let lost = false;
  client.on('error', (error: Error) => {
    if (lost) return;
    lost = true;
    logger?.warn({ cause: error.message }, 'quota store (Redis) lost: each host counts the API quota alone until it is back');
  });
  client.on('ready', () => {
    if (!lost) return;
    lost = false;
    logger?.warn('quota store (Redis) regained');
  });
  clients.set(url, client);
  return client;
}

/** Closes this process's quota store clients (a graceful stop). */
export async function closeQuotaStores(): Promise<void> {
  const open = [...clients.values()];
  clients.clear();
  await Promise.all(open.map((client) => client.quit().catch(() => client.disconnect())));
}
