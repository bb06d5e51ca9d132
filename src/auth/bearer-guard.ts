/**
 * Checks the Bearer access token of an API request (RFC 6750) against the database on every call,
 * so that a revoked secret or credential stops working at once in every service process.
 * The company of the request comes from the token and from nowhere else.
 */
import { ApiError } from '../errors';
import type { Database } from '../database/prisma-client';
import { sqlOf } from '../database/sql';
import { type Environment, hashAccessToken, otherEnvironment } from './opaque-secrets';

export interface Principal {
  companyId: string;
  credentialId: string;
  clientId: string;
  /** The credential's display name: the `creator` of the partner's writes. */
  displayName: string;
  scopes: string[];
}

const REALM = 'rental-guarantee';

export class Unauthorized extends ApiError {
  constructor(message: string, tokenWasSent: boolean) {
    // RFC 6750 §3.1: no error attribute when the request carried no token at all.
    const challenge = tokenWasSent ? `Bearer realm="${REALM}", error="invalid_token"` : `Bearer realm="${REALM}"`;
    super(401, 'unauthorized', message, undefined, { 'WWW-Authenticate': challenge });
  }
}

export class InsufficientScope extends ApiError {
  constructor(needed: string[]) {
    const scope = needed.join(' ');
    super(403, 'insufficient_scope', `The access token lacks the scope this operation needs: ${scope}.`, undefined, {
      'WWW-Authenticate': `Bearer realm="${REALM}", error="insufficient_scope", scope="${scope}"`,
    });
  }
}

/** The token's row as the statements below select it (`expiresAt` is text when it comes as JSON). */
export interface StoredToken {
  companyId: string;
  scopes: string[];
  expiresAt: Date | string;
  credentialId: string;
  clientId: string;
  displayName: string;
  revoked: boolean;
}

/** The token with its credential and secret, revocations included, by the hash bound at `placeholder`. */
export function storedTokenSelect(placeholder: string): string {
  return `SELECT t.company_id AS "companyId", t.scopes, t.expires_at AS "expiresAt", c.id AS "credentialId",
           c.client_id AS "clientId", c.display_name AS "displayName",
           (c.revoked_at IS NOT NULL OR s.revoked_at IS NOT NULL) AS revoked
    FROM access_tokens t
    JOIN credentials c ON c.id = t.credential_id
    JOIN credential_secrets s ON s.id = t.secret_id
    WHERE t.token_hash = ${placeholder}`;
}

/** The checks that need no database: a Bearer token is there, well-formed and of this environment. Returns its hash. */
export function bearerTokenHash(environment: Environment, authorization: string | undefined): string {
  if (!authorization) throw new Unauthorized('A Bearer access token is required.', false);
  const match = /^Bearer\s+([A-Za-z0-9._~+/-]+=*)\s*$/i.exec(authorization);
  if (!match) throw new Unauthorized('The Authorization header must be "Bearer <access token>".', true);
  const token = match[1]!;
  const other = otherEnvironment(token, environment);
  if (other) throw new Unauthorized(`This access token was issued by the ${other} environment.`, true);
  return hashAccessToken(token);
}

/** The principal of a stored token that is live and carries the scopes one of `requirements` needs. */
export function principalOf(stored: StoredToken | undefined, requirements: string[][]): Principal {
  if (!stored || stored.revoked) {
    throw new Unauthorized('The access token is invalid or has been revoked.', true);
  }
  if (new Date(stored.expiresAt).getTime() <= Date.now()) throw new Unauthorized('The access token has expired.', true);
  const principal = {
    companyId: stored.companyId,
    credentialId: stored.credentialId,
    clientId: stored.clientId,
    displayName: stored.displayName,
    scopes: stored.scopes,
  };
  requireScopes(principal, requirements);
  return principal;
}

/** The stored token by its hash, in a round trip of its own (undefined when unknown). */
export async function findStoredToken(db: Database, tokenHash: string): Promise<StoredToken | undefined> {
  return (await sqlOf(db).rows<StoredToken>(storedTokenSelect('$1'), [tokenHash], 'bearer-token'))[0];
}

/** One round trip of its own: the token with its credential and secret, revocations included. */
export async function authenticateBearer(db: Database, environment: Environment, authorization: string | undefined, requirements: string[][]): Promise<Principal> {
  return principalOf(await findStoredToken(db, bearerTokenHash(environment, authorization)), requirements);
}

/**
 * The scopes an operation needs, from the security requirements the contract declares for it:
 * all scopes of at least one requirement. The challenge names the first requirement's scopes.
 */
export function requireScopes(principal: Principal, requirements: string[][]): void {
  if (requirements.length === 0) return;
  const met = requirements.some((needed) => needed.every((scope) => principal.scopes.includes(scope)));
  if (!met) throw new InsufficientScope(requirements[0]!);
}
