/**
 * Request limits per credential, applied by the pipeline right after authentication, before the
 * scope check (a request refused for its scope counts as one request):
 *  - a quota of RATE_LIMIT_REQUESTS per RATE_LIMIT_WINDOW_SECONDS (rate-limiter-flexible), counted in
 *    memory by one process, or by the cluster's primary for all the workers of one host
 *    (RateLimiterCluster: no database statement per request), or, with several hosts, in Redis
 *    (RATE_LIMIT_REDIS_URL, RateLimiterRedis: one atomic command per request; the host's counter is
 *    its insurance while Redis is unreachable); an expensive request (a tenant name search) counts
 *    RATE_LIMIT_SEARCH_COST requests;
 *  - at most RATE_LIMIT_SEARCH_CONCURRENCY expensive requests of one credential at a time in this
 *    process, and at most half of the database pool for all credentials together, so that one
 *    partner's broad searches cannot take the connections every partner needs.
 * Every answer to an authenticated request carries `RateLimit-Policy` and `RateLimit`
 * (draft-ietf-httpapi-ratelimit-headers); a refused one is 429 `rate_limited` with `Retry-After`.
 */
import cluster from 'node:cluster';
import { RateLimiterCluster, RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config';
import { ApiError } from '../errors';
import type { Logger } from '../logger';
import { metrics } from '../observability/metrics';
import { quotaStore } from './quota-store';

export interface RateLimitPolicy {
  /** Requests per window; 0 turns the quota off. */
  points: number;
  windowSeconds: number;
  searchCost: number;
  searchConcurrency: number;
  /** Expensive requests this process runs at once, for every credential together. */
  searchCapacity: number;
  /** The shared counter store of several hosts (Redis); unset: this host counts alone. */
  redisUrl?: string;
}

/** What a request consumed: the headers its answer carries. */
export interface RateLimitState {
  headers: Record<string, string>;
}

export function rateLimitPolicy(config: Config): RateLimitPolicy {
  return {
    points: config.RATE_LIMIT_REQUESTS,
    windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
    searchCost: config.RATE_LIMIT_SEARCH_COST,
    searchConcurrency: config.RATE_LIMIT_SEARCH_CONCURRENCY,
    searchCapacity: Math.max(1, Math.floor(config.DATABASE_POOL_MAX / 2)),
    redisUrl: config.RATE_LIMIT_REDIS_URL,
  };
}

export class RateLimits {
  private readonly limiter: RateLimiterAbstract | undefined;
  /** The same on every answer. */
  private readonly policyHeader: string;
  private readonly searches = new Map<string, number>();
  private searchesRunning = 0;

  constructor(
    readonly policy: RateLimitPolicy,
    logger?: Logger,
  ) {
    this.policyHeader = `default;q=${policy.points};w=${policy.windowSeconds}`;
    if (policy.points === 0) return;
    const options = { keyPrefix: 'api', points: policy.points, duration: policy.windowSeconds };
    // A worker of a cluster asks the primary (RateLimiterClusterMaster, runtime/cluster.ts).
    const host = cluster.isWorker ? new RateLimiterCluster({ ...options, timeoutMs: 3_000 }) : new RateLimiterMemory(options);
    this.limiter = policy.redisUrl
      ? new RateLimiterRedis({
          ...options,
          keyPrefix: 'rental-guarantee:api',
          storeClient: quotaStore(policy.redisUrl, logger),
          // Not connected: count on the host's counter at once rather than wait.
          rejectIfRedisNotReady: true,
          insuranceLimiter: host,
        })
      : host;
  }

  /** Counts the request against the credential's quota; 429 when it is spent. */
  async consume(credentialId: string, expensive: boolean): Promise<RateLimitState> {
    if (!this.limiter) return { headers: {} };
    const cost = expensive ? this.policy.searchCost : 1;
    try {
      return { headers: this.headersOf(await this.limiter.consume(credentialId, cost)) };
    } catch (outcome) {
      if (!(outcome instanceof RateLimiterRes)) throw outcome;
      metrics.rateLimited.inc({ reason: 'quota' });
      const headers = this.headersOf(outcome);
      throw new ApiError(429, 'rate_limited', `Too many requests for this credential; retry after ${secondsOf(outcome)} seconds.`, undefined, {
        ...headers,
        'Retry-After': String(secondsOf(outcome)),
      });
    }
  }

  /** Admits an expensive request (429 past the credential's share, 503 past the process's); returns its release. */
  admitSearch(credentialId: string): () => void {
    const running = this.searches.get(credentialId) ?? 0;
    if (running >= this.policy.searchConcurrency) {
      metrics.rateLimited.inc({ reason: 'search_concurrency' });
      throw new ApiError(429, 'rate_limited', `At most ${this.policy.searchConcurrency} name searches of one credential run at a time.`, undefined, {
        'Retry-After': '1',
      });
    }
    if (this.searchesRunning >= this.policy.searchCapacity) {
      metrics.rateLimited.inc({ reason: 'search_capacity' });
      throw new ApiError(503, 'service_unavailable', 'The service is busy with searches; retry shortly.', undefined, { 'Retry-After': '1' });
    }
    this.searches.set(credentialId, running + 1);
    this.searchesRunning += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.searchesRunning -= 1;
      const left = (this.searches.get(credentialId) ?? 1) - 1;
      if (left === 0) this.searches.delete(credentialId);
      else this.searches.set(credentialId, left);
    };
  }

  private headersOf(outcome: RateLimiterRes): Record<string, string> {
    return {
      'RateLimit-Policy': this.policyHeader,
      RateLimit: `default;r=${Math.max(0, outcome.remainingPoints)};t=${secondsOf(outcome)}`,
    };
  }
}

const secondsOf = (outcome: RateLimiterRes) => Math.max(1, Math.ceil(outcome.msBeforeNext / 1000));
