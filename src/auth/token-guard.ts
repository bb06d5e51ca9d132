/**
 * Brute-force protection of the token endpoint. Failed client authentications are counted per
 * source address, per client ID and per client ID at an address, in PostgreSQL
 * (rate-limiter-flexible's RateLimiterPrisma, table token_rate_limits), so every service process
 * sees the same counts. After `failuresPerAddress` failures from an address, or `failuresPerClient`
 * failures of a client ID from any address, within `failureWindowSeconds`, that address or client ID
 * is locked out for `lockoutSeconds`: its token requests are answered 429 without looking at the
 * secret. Unknown client IDs count like wrong secrets. Successful authentications count nothing.
 *
 * Known addresses: an address from which the client ID obtained a token within `knownAddressDays`
 * is exempt from that client ID's lockout (a client ID is public: anybody could fail with it
 * elsewhere) and from the address's own lockout (an ERP provider calls for hundreds of agencies from
 * a few addresses: one agency's wrong secret must not stop the others). The address lockout still
 * refuses every client ID that is not known there, which is what a sweep of client IDs is. A known
 * client ID is never exempt from its own failures at that address: `failuresPerClient` of them lock
 * out that client ID at that address (a misconfigured client, or someone at the same address trying
 * its secret), whatever else is exempt.
 *
 * Order of checks for one request: the quick refusal (this process's memory of lockouts, and for a
 * locked-out address whether the client ID is known there), then the request waits for its turn
 * (KeyedQueue: one verification at a time per address, or per client ID at an address where it is
 * known), then the stored counts (a failure that another process counted, or the one just ahead in
 * the queue, is seen here), and only then the secret's verification (scrypt). A refused request
 * never reaches scrypt. Whether a client ID is known at an address costs one statement the first
 * time this process meets the pair, and is then remembered.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { RateLimiterPrisma, RateLimiterRes } from 'rate-limiter-flexible';
import type { Database } from '../database/prisma-client';
import { KeyedQueue } from './keyed-queue';

export interface TokenGuardSettings {
  failuresPerAddress: number;
  failuresPerClient: number;
  failureWindowSeconds: number;
  lockoutSeconds: number;
  /** 0: no address is exempt from a client ID's lockout. */
  knownAddressDays: number;
}

export interface Lockout {
  /** What is locked out: the request's source address, or its client ID. */
  scope: 'address' | 'client';
  /** When the lockout ends (ms since the epoch). */
  endsAt: number;
}

/** The Prisma model delegate that RateLimiterPrisma writes (prisma/schema.prisma, TokenRateLimit). */
const TABLE = 'tokenRateLimit';
/** Lockouts and known client IDs remembered by this process; beyond this many, the oldest are read again from the store. */
const REMEMBERED = 10_000;
const CLEANUP_INTERVAL_MS = 5 * 60_000;
/** How long this process believes that a client ID is not known at an address. */
const UNKNOWN_REMEMBERED_MS = 60_000;

/** Whether a client ID is known at an address, and until when this process may believe it. */
interface Knowledge {
  known: boolean;
  until: number;
}

export class TokenGuard {
  private readonly byAddress: RateLimiterPrisma;
  private readonly byClient: RateLimiterPrisma;
  private readonly byClientAtAddress: RateLimiterPrisma;
  private readonly knownAddresses: RateLimiterPrisma | undefined;
  private readonly knownAddressSeconds: number;
  /** Refusals that cannot change before they end, with the time they end (ms since the epoch). */
  private readonly remembered = new LRUCache<string, Lockout>({ max: REMEMBERED });
  /** Kept apart from the lockouts, so that a sweep of made-up client IDs cannot push them out. */
  private readonly knowledge = new LRUCache<string, Knowledge>({ max: REMEMBERED });
  private readonly verifications = new KeyedQueue();
  private lastCleanup = 0;

  constructor(
    private readonly db: Database,
    settings: TokenGuardSettings,
  ) {
    // `points` is the number of failures a window tolerates: the one that reaches the limit is
    // rejected by consume() and makes the library store the lockout (blockDuration).
    const counter = (keyPrefix: string, limit: number) =>
      new RateLimiterPrisma({
        storeClient: db,
        tableName: TABLE,
        keyPrefix,
        points: limit - 1,
        duration: settings.failureWindowSeconds,
        blockDuration: settings.lockoutSeconds,
        // The library's own cleanup is a timer per limiter that never stops, and would outlive an app
        // (tests build many); deleteExpired() below does that work on the endpoint's own traffic.
        clearExpiredByTimeout: false,
      });
    this.byAddress = counter('token_address', settings.failuresPerAddress);
    this.byClient = counter('token_client', settings.failuresPerClient);
    this.byClientAtAddress = counter('token_client_at', settings.failuresPerClient);
    this.knownAddressSeconds = settings.knownAddressDays * 86_400;
    if (this.knownAddressSeconds > 0) {
      this.knownAddresses = new RateLimiterPrisma({
        storeClient: db,
        tableName: TABLE,
        keyPrefix: 'token_known',
        points: 1,
        duration: this.knownAddressSeconds,
        clearExpiredByTimeout: false,
      });
    }
  }

  /**
   * The refusal of a request that this process can decide without the queue or scrypt: a lockout
   * it remembers, unless the lockout is its address's and the client ID is known there (that costs
   * one statement the first time this process meets the client ID at that address).
   */
  async quickRefusal(address: string, clientId: string): Promise<Lockout | undefined> {
    const client = clientKey(clientId);
    const own = this.recall(clientEntry(client, address));
    if (own) return own;
    const addressLockout = this.recall(addressEntry(address));
    if (!addressLockout) return undefined;
    return (await this.isKnown(client, address)) ? undefined : addressLockout;
  }

  /**
   * Verifies the secret through `verify` (the model's getClient) unless the request is refused, and
   * counts the outcome. Resolves to the lockout instead when refused.
   */
  async authenticate<T>(address: string, clientId: string, verify: () => Promise<T>): Promise<{ client: T } | { lockout: Lockout }> {
    const client = clientKey(clientId);
    this.deleteExpired();
    // A client ID known at the address waits only for its own earlier requests there: the 29 other
    // agencies of an ERP do not queue behind the one that keeps failing. Everything else from the
    // address (a sweep of client IDs included) queues together.
    const queue = (await this.isKnown(client, address)) ? pairKey(client, address) : address;
    return this.verifications.run(queue, async () => {
      const lockout = (await this.quickRefusal(address, clientId)) ?? (await this.storedLockout(address, client));
      if (lockout) return { lockout };
      const verified = await verify();
      if (verified) await this.recordKnown(client, address);
      else await this.countFailure(address, client);
      return { client: verified };
    });
  }

  /**
   * At most every CLEANUP_INTERVAL_MS per process, without waiting for it: deletes the rows that
   * expired over an hour ago (what the library's timer would do). A failure waits for the next turn.
   */
  private deleteExpired(): void {
    const now = Date.now();
    if (now - this.lastCleanup < CLEANUP_INTERVAL_MS) return;
    this.lastCleanup = now;
    this.db.tokenRateLimit.deleteMany({ where: { expire: { lt: new Date(now - 3_600_000) } } }).catch(() => undefined);
  }

  private async storedLockout(address: string, client: string): Promise<Lockout | undefined> {
    const [addressCount, clientCount, ownCount] = await Promise.all([
      this.byAddress.get(address),
      this.byClient.get(client),
      this.byClientAtAddress.get(pairKey(client, address)),
    ]);
    const locked = (count: RateLimiterRes | null, limiter: RateLimiterPrisma): count is RateLimiterRes =>
      count !== null && count.consumedPoints > limiter.points;
    // The client ID's own failures at this address: no exemption.
    if (locked(ownCount, this.byClientAtAddress)) return this.remember(clientEntry(client, address), 'client', ownCount.msBeforeNext);
    const addressLocked = locked(addressCount, this.byAddress);
    const clientLocked = locked(clientCount, this.byClient);
    if (!addressLocked && !clientLocked) return undefined;
    // Whether the address lockout applies depends on each client ID: quickRefusal decides that.
    const addressLockout = addressLocked ? this.remember(addressEntry(address), 'address', addressCount.msBeforeNext) : undefined;
    const lockout = addressLockout ?? { scope: 'client' as const, endsAt: Date.now() + Math.max(clientCount!.msBeforeNext, 1) };
    if (await this.isKnown(client, address)) return undefined;
    // Unknown stays unknown until the lockout ends: only a successful authentication makes a client
    // ID known at an address, and it is refused everywhere but at its known addresses.
    if (!addressLockout) this.remembered.set(clientEntry(client, address), lockout);
    return lockout;
  }

  /**
   * Whether the client ID obtained a token from the address lately (one statement, then remembered:
   * until the stored row expires when known, UNKNOWN_REMEMBERED_MS when not, since another process
   * may see its first success meanwhile).
   */
  private async isKnown(client: string, address: string): Promise<boolean> {
    if (!this.knownAddresses) return false;
    const key = pairKey(client, address);
    const remembered = this.knowledge.get(key);
    if (remembered && remembered.until > Date.now()) return remembered.known;
    const stored = await this.knownAddresses.get(key);
    const until = Date.now() + (stored ? stored.msBeforeNext : UNKNOWN_REMEMBERED_MS);
    this.knowledge.set(key, { known: stored !== null, until });
    return stored !== null;
  }

  private async recordKnown(client: string, address: string): Promise<void> {
    if (!this.knownAddresses) return;
    const key = pairKey(client, address);
    await this.knownAddresses.set(key, 1, this.knownAddressSeconds);
    this.knowledge.set(key, { known: true, until: Date.now() + this.knownAddressSeconds * 1000 });
  }

  private async countFailure(address: string, client: string): Promise<void> {
    const outcomes = await Promise.allSettled([
      this.byAddress.consume(address),
      this.byClient.consume(client),
      this.byClientAtAddress.consume(pairKey(client, address)),
    ]);
    for (const outcome of outcomes) {
      // consume() rejects with a RateLimiterRes at the limit, and with an Error when the store fails.
      if (outcome.status === 'rejected' && !(outcome.reason instanceof RateLimiterRes)) throw outcome.reason;
    }
    const [addressOutcome, , ownOutcome] = outcomes;
    // The next requests from this address (queued behind this one) are refused without the stored
    // counts. A client ID's lockout from any address is not remembered here: whether it applies
    // depends on the address being known.
    if (addressOutcome.status === 'rejected') this.remember(addressEntry(address), 'address', (addressOutcome.reason as RateLimiterRes).msBeforeNext);
    if (ownOutcome.status === 'rejected') this.remember(clientEntry(client, address), 'client', (ownOutcome.reason as RateLimiterRes).msBeforeNext);
  }

  private remember(entry: string, scope: Lockout['scope'], msBeforeNext: number): Lockout {
    const lockout = { scope, endsAt: Date.now() + Math.max(msBeforeNext, 1) };
    this.remembered.set(entry, lockout);
    return lockout;
  }

  private recall(entry: string): Lockout | undefined {
    const found = this.remembered.get(entry);
    if (found && found.endsAt <= Date.now()) this.remembered.delete(entry);
    return found && found.endsAt > Date.now() ? found : undefined;
  }
}

/**
 * Client IDs are stored hashed: a presented "client ID" may be anything, a secret pasted into the
 * wrong field included, and the hash keeps the key short.
 */
function clientKey(clientId: string): string {
  return createHash('sha256').update(clientId).digest('base64url');
}

/** This process's memory: the address's lockout, and the refusal of a client ID at an address. */
const addressEntry = (address: string) => `a ${address}`;
const clientEntry = (client: string, address: string) => `c ${client} ${address}`;
/** A client ID at an address, in the store (known addresses, and its own failures there). */
const pairKey = (client: string, address: string) => `${client}@${address}`;
