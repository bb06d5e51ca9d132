/**
 * Checks the Bearer access token of an API request (RFC 6750) against the database on every call,
 * so that a revoked secret or credential stops working at once in every service process.
 * The company of the request comes from the token and from nowhere else.
 */
import { ApiError } from '../errors';
import type { Database } from '../database/prisma-client';
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

export async function authenticateBearer(db: Database, environment: Environment, authorization: string | undefined): Promise<Principal> {
  if (!authorization) throw new Unauthorized('A Bearer access token is required.', false);
  const match = /^Bearer\s+([A-Za-z0-9._~+/-]+=*)\s*$/i.exec(authorization);
  if (!match) throw new Unauthorized('The Authorization header must be "Bearer <access token>".', true);
  const token = match[1]!;
  const other = otherEnvironment(token, environment);
  if (other) throw new Unauthorized(`This access token was issued by the ${other} environment.`, true);
  const stored = await db.accessToken.findUnique({
    where: { tokenHash: hashAccessToken(token) },
    select: {
      companyId: true,
      scopes: true,
      expiresAt: true,
      credential: { select: { id: true, clientId: true, displayName: true, revokedAt: true } },
      secret: { select: { revokedAt: true } },
    },
  });
  if (!stored || stored.credential.revokedAt || stored.secret.revokedAt) {
    throw new Unauthorized('The access token is invalid or has been revoked.', true);
  }
  if (stored.expiresAt.getTime() <= Date.now()) throw new Unauthorized('The access token has expired.', true);
  return {
    companyId: stored.companyId,
    credentialId: stored.credential.id,
    clientId: stored.credential.clientId,
    displayName: stored.credential.displayName,
    scopes: stored.scopes,
  };
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
