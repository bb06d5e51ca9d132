/**
 * Request limits, applied by the pipeline before anything else runs:
 *  - for a request whose token was accepted (right after authentication, before the scope check:
 *    a request refused for its scope counts as one request), a quota of RATE_LIMIT_REQUESTS per
 *    RATE_LIMIT_WINDOW_SECONDS per credential, and one of RATE_LIMIT_AGENCY_REQUESTS per window
 *    for all the credentials of its agency together (issue 34 item 6: an agency minting
 *    credentials does not multiply its quota); an expensive request (a tenant name search) counts
 *    RATE_LIMIT_SEARCH_COST requests in both;
 *  - at most RATE_LIMIT_SEARCH_CONCURRENCY expensive requests of one credential at a time in this
 *    process, RATE_LIMIT_AGENCY_SEARCH_CONCURRENCY of one agency, and at most half of the database
 *    pool for all together, so that one partner's broad searches cannot take the connections
 *    every partner needs;
 *  - for a request without a token (the published documents and reference page), a quota of
 *    ANONYMOUS_RATE_LIMIT_REQUESTS per ANONYMOUS_RATE_LIMIT_WINDOW_SECONDS per client address
 *    (IPv6 by its /64), so that nobody slows the partners down without a credential.
 * Counters are quota-counter.ts's (memory, the cluster's primary, or Redis). Every answer to an
 * authenticated request carries `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-
 * headers), one list member per quota (`default`, the credential's; `agency`); a refused request is
 * 429 `rate_limited` with `Retry-After`.
 */
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { sourceAddressKey } from '../auth/source-address';
import type { Config } from '../config';
import { ApiError } from '../errors';
import type { Logger } from '../logger';
import { metrics } from '../observability/metrics';
import { quotaCounter } from './quota-counter';

export interface RateLimitPolicy {
  /** Requests per window and credential; 0 turns the quota off. */
  points: number;
  windowSeconds: number;
  /** Requests per window for all the credentials of an agency; 0 turns it off. */
  agencyPoints?: number;
  searchCost: number;
  searchConcurrency: number;
  /** Expensive requests of one agency's credentials at once in this process; absent: no agency limit. */
  agencySearchConcurrency?: number;
  /** Expensive requests this process runs at once, for every credential together. */
  searchCapacity: number;
  /** Requests without a token per window and client address; 0 or absent turns it off. */
  anonymousPoints?: number;
  anonymousWindowSeconds?: number;
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
    agencyPoints: config.RATE_LIMIT_AGENCY_REQUESTS,
    searchCost: config.RATE_LIMIT_SEARCH_COST,
    searchConcurrency: config.RATE_LIMIT_SEARCH_CONCURRENCY,
    agencySearchConcurrency: config.RATE_LIMIT_AGENCY_SEARCH_CONCURRENCY,
    searchCapacity: Math.max(1, Math.floor(config.DATABASE_POOL_MAX / 2)),
    anonymousPoints: config.ANONYMOUS_RATE_LIMIT_REQUESTS,
    anonymousWindowSeconds: config.ANONYMOUS_RATE_LIMIT_WINDOW_SECONDS,
    redisUrl: config.RATE_LIMIT_REDIS_URL,
  };
}

/** Who a counted request is: its credential and its agency. */
export interface Counted {
  credentialId: string;
  companyId: string;
}

export class RateLimits {
  private readonly credential: RateLimiterAbstract | undefined;
  private readonly agency: RateLimiterAbstract | undefined;
  private readonly anonymous: RateLimiterAbstract | undefined;
  /** The same on every answer. */
  private readonly policyHeader: string;
  private readonly searches = new Map<string, number>();
  private searchesRunning = 0;

  constructor(
    readonly policy: RateLimitPolicy,
    logger?: Logger,
  ) {
    const store = { redisUrl: policy.redisUrl, logger };
    const agencyPoints = policy.agencyPoints ?? 0;
    this.policyHeader = [
      `default;q=${policy.points};w=${policy.windowSeconds}`,
      ...(policy.points > 0 && agencyPoints > 0 ? [`agency;q=${agencyPoints};w=${policy.windowSeconds}`] : []),
    ].join(', ');
    if (policy.points > 0) {
      this.credential = quotaCounter('api', policy.points, policy.windowSeconds, store);
      if (agencyPoints > 0) this.agency = quotaCounter('api-agency', agencyPoints, policy.windowSeconds, store);
    }
    if ((policy.anonymousPoints ?? 0) > 0) {
      this.anonymous = quotaCounter('anonymous', policy.anonymousPoints!, policy.anonymousWindowSeconds ?? 60, store);
    }
  }

  /** Counts the request against its credential's and its agency's quotas; 429 when either is spent. */
  async consume(who: Counted, expensive: boolean): Promise<RateLimitState> {
    if (!this.credential) return { headers: {} };
    const cost = expensive ? this.policy.searchCost : 1;
    const [credential, agency] = await Promise.all([
      settled(this.credential.consume(who.credentialId, cost)),
      this.agency ? settled(this.agency.consume(who.companyId, cost)) : undefined,
    ]);
    const headers = {
      'RateLimit-Policy': this.policyHeader,
      RateLimit: [`default;${remaining(credential)}`, ...(agency ? [`agency;${remaining(agency)}`] : [])].join(', '),
    };
    const refusal = [credential, agency].find((outcome) => outcome?.refused);
    if (!refusal) return { headers };
    metrics.rateLimited.inc({ reason: refusal === credential ? 'quota' : 'agency_quota' });
    const whose = refusal === credential ? 'this credential' : "this credential's agency (all its credentials together)";
    throw new ApiError(429, 'rate_limited', `Too many requests for ${whose}; retry after ${secondsOf(refusal.outcome)} seconds.`, undefined, {
      ...headers,
      'Retry-After': String(secondsOf(refusal.outcome)),
    });
  }

  /** Counts a request without a token against its client address's quota; 429 when it is spent. */
  async consumeAnonymous(address: string | undefined): Promise<void> {
    if (!this.anonymous) return;
    const outcome = await settled(this.anonymous.consume(sourceAddressKey(address), 1));
    if (!outcome.refused) return;
    metrics.rateLimited.inc({ reason: 'anonymous' });
    throw new ApiError(
      429,
      'rate_limited',
      `Too many requests without a token from this address; retry after ${secondsOf(outcome.outcome)} seconds.`,
      undefined,
      {
        'Retry-After': String(secondsOf(outcome.outcome)),
      },
    );
  }

  /** Admits an expensive request (429 past the credential's or the agency's share, 503 past the process's); returns its release. */
  admitSearch(who: Counted): () => void {
    const credentialKey = `credential:${who.credentialId}`;
    const agencyKey = `agency:${who.companyId}`;
    const agencyLimit = this.policy.agencySearchConcurrency;
    if ((this.searches.get(credentialKey) ?? 0) >= this.policy.searchConcurrency) {
      metrics.rateLimited.inc({ reason: 'search_concurrency' });
      throw new ApiError(429, 'rate_limited', `At most ${this.policy.searchConcurrency} name searches of one credential run at a time.`, undefined, {
        'Retry-After': '1',
      });
    }
    if (agencyLimit !== undefined && (this.searches.get(agencyKey) ?? 0) >= agencyLimit) {
      metrics.rateLimited.inc({ reason: 'agency_search_concurrency' });
      throw new ApiError(429, 'rate_limited', `At most ${agencyLimit} name searches of one agency's credentials run at a time.`, undefined, {
        'Retry-After': '1',
      });
    }
    if (this.searchesRunning >= this.policy.searchCapacity) {
      metrics.rateLimited.inc({ reason: 'search_capacity' });
      throw new ApiError(503, 'service_unavailable', 'The service is busy with searches; retry shortly.', undefined, { 'Retry-After': '1' });
    }
    const keys = [credentialKey, agencyKey];
    for (const key of keys) this.searches.set(key, (this.searches.get(key) ?? 0) + 1);
    this.searchesRunning += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.searchesRunning -= 1;
      for (const key of keys) {
        const left = (this.searches.get(key) ?? 1) - 1;
        if (left === 0) this.searches.delete(key);
        else this.searches.set(key, left);
      }
    };
  }
}

interface Outcome {
  outcome: RateLimiterRes;
  refused: boolean;
}

/** A counter's answer: consume() rejects with a RateLimiterRes at the limit, and with an Error when its store fails. */
async function settled(consumed: Promise<RateLimiterRes>): Promise<Outcome> {
  try {
    return { outcome: await consumed, refused: false };
  } catch (outcome) {
    if (!(outcome instanceof RateLimiterRes)) throw outcome;
    return { outcome, refused: true };
  }
}

const remaining = ({ outcome }: Outcome) => `r=${Math.max(0, outcome.remainingPoints)};t=${secondsOf(outcome)}`;
const secondsOf = (outcome: RateLimiterRes) => Math.max(1, Math.ceil(outcome.msBeforeNext / 1000));
