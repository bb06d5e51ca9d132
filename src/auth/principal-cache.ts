/**
 * The principals of recently seen access tokens, so that a request does not spend a database
 * statement on its token (bench/results.md shows what a statement costs a get). Bounded in size;
 * an entry dies with its token; a revocation evicts it in every process at once (the revocation
 * listener feeds `evictCredential` from PostgreSQL's NOTIFY). While the listener is not connected
 * the cache is not trusted: every lookup misses, so every request reads its token.
 *
 * A notification travels on its own: a request could reach this process before the revocation
 * that its caller already saw answered. So a hit is served only after the listener's barrier
 * (notification-barrier.ts) has proved that every revocation committed before the request arrived
 * has been applied here: a revoked token is refused on its very next request, in every process.
 */
import { LRUCache } from 'lru-cache';
import type { StoredToken } from './principal';

/** Resolves once every notification committed before the call has been applied; rejects when it cannot tell. */
export type CaughtUp = () => Promise<void>;

export class PrincipalCache {
  private readonly entries: LRUCache<string, StoredToken>;
  private trusted = false;
  private caughtUp: CaughtUp | undefined;
  /**
   * Bumped by every eviction and change of trust. A lookup that read the database before a
   * revocation arrived must not store what it read: `set` refuses an entry of an older epoch.
   */
  private epochCounter = 0;

  constructor(maxEntries: number) {
    this.entries = new LRUCache<string, StoredToken>({ max: maxEntries, ttlAutopurge: false });
  }

  get epoch(): number {
    return this.epochCounter;
  }

  get isTrusted(): boolean {
    return this.trusted;
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * The cached principal of a token, once the revocations committed before this call have arrived
   * (a miss costs no round trip: the database read that follows is current anyway).
   */
  async get(tokenHash: string): Promise<StoredToken | undefined> {
    const caughtUp = this.caughtUp;
    if (!this.trusted || !caughtUp || !this.entries.has(tokenHash)) return undefined;
    try {
      await caughtUp();
    } catch {
      return undefined; // the listener could not tell (its connection failed): read the database
    }
    return this.trusted ? this.entries.get(tokenHash) : undefined;
  }

  /** Keeps a live token read at `epoch`, until it expires. */
  set(tokenHash: string, token: StoredToken, epoch: number): void {
    const ttl = token.expiresAt.getTime() - Date.now();
    if (!this.trusted || epoch !== this.epochCounter || token.revoked || ttl <= 0) return;
    this.entries.set(tokenHash, token, { ttl });
  }

  /** A credential, one of its secrets or one of its tokens was revoked. */
  evictCredential(credentialId: string): void {
    this.epochCounter += 1;
    for (const [hash, token] of this.entries.entries()) {
      if (token.credentialId === credentialId) this.entries.delete(hash);
    }
  }

  /**
   * The listener is connected and listening: start from nothing, since notifications may have been
   * missed. `caughtUp` is its barrier, awaited before each hit is served.
   */
  trust(caughtUp: CaughtUp): void {
    this.epochCounter += 1;
    this.entries.clear();
    this.caughtUp = caughtUp;
    this.trusted = true;
  }

  /** The listener lost its connection: nothing cached may be used until it listens again. */
  distrust(): void {
    this.epochCounter += 1;
    this.trusted = false;
    this.caughtUp = undefined;
    this.entries.clear();
  }
}
