/**
 * The pipeline's one door from a Bearer token to a principal: the token's hash is looked up in
 * this process's cache (served once the revocation listener has caught up), and on a miss in the
 * database (one statement). A revoked, expired or
 * unknown token is 401. Only the pipeline calls this; nothing past it sees a token.
 */
import type { Queryable } from '../database/prisma-client';
import type { Environment } from './opaque-secrets';
import { bearerTokenHash, livePrincipal, type Principal } from './principal';
import type { PrincipalCache } from './principal-cache';
import { findStoredToken } from './token-store';

export class BearerAuthenticator {
  constructor(
    private readonly db: Queryable,
    private readonly environment: Environment,
    private readonly cache: PrincipalCache,
  ) {}

  async principalOf(authorization: string | undefined): Promise<Principal> {
    const tokenHash = bearerTokenHash(this.environment, authorization);
    const cached = await this.cache.get(tokenHash);
    if (cached) return livePrincipal(cached);
    const epoch = this.cache.epoch;
    const stored = await findStoredToken(this.db, tokenHash);
    if (stored) this.cache.set(tokenHash, stored, epoch);
    return livePrincipal(stored);
  }
}
