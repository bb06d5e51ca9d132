/**
 * A counter of requests per key and window (rate-limiter-flexible), counted in memory by one
 * process, or by the cluster's primary for all the workers of one host (RateLimiterCluster: no
 * database statement per request), or, with several hosts, in Redis (RATE_LIMIT_REDIS_URL,
 * RateLimiterRedis: one atomic command per request; the host's counter is its insurance while
 * Redis is unreachable). Each quota of rate-limits.ts is one such counter, under its own prefix.
 */
import cluster from 'node:cluster';
import { RateLimiterCluster, RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Logger } from '../logger';
import { quotaStore } from './quota-store';

export function quotaCounter(
  keyPrefix: string,
  points: number,
  windowSeconds: number,
  store: { redisUrl?: string; logger?: Logger },
): RateLimiterAbstract {
  const options = { keyPrefix, points, duration: windowSeconds };
  // A worker of a cluster asks the primary (RateLimiterClusterMaster, runtime/cluster.ts).
  const host = cluster.isWorker ? new RateLimiterCluster({ ...options, timeoutMs: 3_000 }) : new RateLimiterMemory(options);
  if (!store.redisUrl) return host;
  return new RateLimiterRedis({
    ...options,
    keyPrefix: `rental-guarantee:${keyPrefix}`,
    storeClient: quotaStore(store.redisUrl, store.logger),
    // Not connected: count on the host's counter at once rather than wait.
    rejectIfRedisNotReady: true,
    insuranceLimiter: host,
  });
}
