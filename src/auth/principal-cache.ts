/**
 * The principals of recently seen access tokens, so that a request does not spend a database
 * statement on its token (bench/results.md shows what a statement costs a get). Bounded in size;
 * an entry dies with its token; a revocation evicts it in every process at once (the revocation
 * listener feeds `evictCredential` from PostgreSQL's NOTIFY). While the listener is not connected
 * the cache is not trusted: every lookup misses, so every request reads its token.
 */
import { LRUCache } from 'lru-cache';
import type { StoredToken } from './principal';

export class PrincipalCache {
  private readonly entries: LRUCache<string, StoredToken>;
  private trusted = false;
  /**
   * Bumped by every eviction and change of trust. A lookup that read the database before a
   * revocation arrived must not store what it read: `set` refuses an entry of an older epoch.
   */
  private epochCounter = 0;
  private readonly evictionWaiters = new Map<string, Array<() => void>>();

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

  get(tokenHash: string): StoredToken | undefined {
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
    for (const resolve of this.evictionWaiters.get(credentialId) ?? []) resolve();
    this.evictionWaiters.delete(credentialId);
  }

  /**
   * Resolves when this process has evicted the credential's principals (the revocation's
   * notification arrived), or after `timeoutMs` whatever happened. Call it before revoking.
   */
  whenEvicted(credentialId: string, timeoutMs = 2_000): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      timer.unref();
      const waiters = this.evictionWaiters.get(credentialId) ?? [];
      waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
      this.evictionWaiters.set(credentialId, waiters);
    });
  }

  /** The listener is connected and listening: start from nothing, since notifications may have been missed. */
  trust(): void {
    this.epochCounter += 1;
    this.entries.clear();
    this.trusted = true;
  }

  /** The listener lost its connection: nothing cached may be used until it listens again. */
  distrust(): void {
    this.epochCounter += 1;
    this.trusted = false;
    this.entries.clear();
  }
}
