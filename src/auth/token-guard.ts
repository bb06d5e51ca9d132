/**
 * Brute-force protection of the token endpoint. Failed client authentications are counted per
 * source address and per client ID in PostgreSQL (rate-limiter-flexible's RateLimiterPrisma, table
 * token_rate_limits), so every service process sees the same counts. After `failuresPerAddress`
 * failures from an address, or `failuresPerClient` failures of a client ID from any address, within
 * `failureWindowSeconds`, that address or client ID is locked out for `lockoutSeconds`: its token
 * requests are answered 429 without looking at the secret. Unknown client IDs count like wrong
 * secrets. Successful authentications count nothing.
 *
 * A client ID is not secret, so anybody could lock a partner out by failing with its ID. An address
 * that authenticated the client ID within `knownAddressDays` is therefore exempt from that client
 * ID's lockout (never from its own address lockout): the partner keeps getting tokens from its
 * servers while an attacker spends the client ID's failures elsewhere.
 *
 * Order of checks for one request: this process's memory of lockouts (no statement; what a flood
 * meets once it is locked out), then the request waits for its address's turn (KeyedQueue: one
 * verification per address at a time), then the stored counts of its address and client ID (a
 * failure that another process counted, or the one just ahead in the queue, is seen here), and only
 * then the secret's verification (scrypt). A refused request never reaches scrypt.
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
/** Lockouts remembered by this process; beyond this many, the oldest are read again from the store. */
const REMEMBERED_LOCKOUTS = 10_000;
const CLEANUP_INTERVAL_MS = 5 * 60_000;

export class TokenGuard {
  private readonly byAddress: RateLimiterPrisma;
  private readonly byClient: RateLimiterPrisma;
  private readonly knownAddresses: RateLimiterPrisma | undefined;
  private readonly knownAddressSeconds: number;
  /** Refusals that cannot change before they end, with the time they end (ms since the epoch). */
  private readonly remembered = new LRUCache<string, Lockout>({ max: REMEMBERED_LOCKOUTS });
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

  /** This process's memory only (no statement): the cheap answer to a flood that is locked out. */
  rememberedLockout(address: string, clientId: string): Lockout | undefined {
    return this.recall(addressEntry(address)) ?? this.recall(clientEntry(clientKey(clientId), address));
  }

  /**
   * Verifies the secret through `verify` (the model's getClient) unless the address or the client
   * ID is locked out, and counts the outcome. Resolves to the lockout instead when refused.
   */
  async authenticate<T>(address: string, clientId: string, verify: () => Promise<T>): Promise<{ client: T } | { lockout: Lockout }> {
    const client = clientKey(clientId);
    this.deleteExpired();
    return this.verifications.run(address, async () => {
      const lockout = this.rememberedLockout(address, clientId) ?? (await this.storedLockout(address, client));
      if (lockout) return { lockout };
      const verified = await verify();
      if (verified) await this.knownAddresses?.set(knownKey(client, address), 1, this.knownAddressSeconds);
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
    const [addressCount, clientCount] = await Promise.all([this.byAddress.get(address), this.byClient.get(client)]);
    if (addressCount && addressCount.consumedPoints > this.byAddress.points) {
      return this.remember(addressEntry(address), 'address', addressCount.msBeforeNext);
    }
    if (clientCount && clientCount.consumedPoints > this.byClient.points) {
      // A known address is exempt; an unknown one stays unknown until the lockout ends (only a
      // successful authentication makes an address known, and it is refused), so remember that.
      if (this.knownAddresses && (await this.knownAddresses.get(knownKey(client, address)))) return undefined;
      return this.remember(clientEntry(client, address), 'client', clientCount.msBeforeNext);
    }
    return undefined;
  }

  private async countFailure(address: string, client: string): Promise<void> {
    const outcomes = await Promise.allSettled([this.byAddress.consume(address), this.byClient.consume(client)]);
    for (const outcome of outcomes) {
      // consume() rejects with a RateLimiterRes at the limit, and with an Error when the store fails.
      if (outcome.status === 'rejected' && !(outcome.reason instanceof RateLimiterRes)) throw outcome.reason;
    }
    const [addressOutcome] = outcomes;
    // The next request from this address (queued behind this one) is refused without a statement.
    // A client ID's lockout is not remembered here: whether it applies depends on the address.
    if (addressOutcome.status === 'rejected') this.remember(addressEntry(address), 'address', (addressOutcome.reason as RateLimiterRes).msBeforeNext);
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

const addressEntry = (address: string) => `a ${address}`;
const clientEntry = (client: string, address: string) => `c ${client} ${address}`;
const knownKey = (client: string, address: string) => `${client}@${address}`;
