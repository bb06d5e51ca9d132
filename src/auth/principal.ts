/**
 * Who calls the API, as the pipeline resolves it from the Bearer token (RFC 6750), and the errors
 * of that resolution. The company of a request comes from here and from nowhere else; nothing
 * past the pipeline ever sees the token itself.
 */
import { ApiError } from '../errors';
import type { CredentialKind } from './scopes';
import { type Environment, hashAccessToken, otherEnvironment } from './opaque-secrets';

export interface Principal {
  companyId: string;
  credentialId: string;
  clientId: string;
  /** The credential's display name: the `creator` of the partner's writes. */
  displayName: string;
  scopes: readonly string[];
  /** Back office: partner, staff or director, and the person's name for the last two. */
  kind: CredentialKind;
  personName: string | null;
  /**
   * Issue 37: present when a person signed in to the console made the request (the session cookie
   * instead of a token): `credentialId` is then the person's id, `clientId` `console:<person id>`.
   */
  session?: { tokenHash: string; personId: string };
}

/** A token's row with what decides whether it still works. */
export interface StoredToken extends Principal {
  expiresAt: Date;
  revoked: boolean;
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
  constructor(needed: readonly string[]) {
    const scope = needed.join(' ');
    super(403, 'insufficient_scope', `The access token lacks the scope this operation needs: ${scope}.`, undefined, {
      'WWW-Authenticate': `Bearer realm="${REALM}", error="insufficient_scope", scope="${scope}"`,
    });
  }
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

/** The principal of a stored token that is live, or 401. */
export function livePrincipal(stored: StoredToken | undefined, now = Date.now()): Principal {
  if (!stored || stored.revoked) throw new Unauthorized('The access token is invalid or has been revoked.', true);
  if (stored.expiresAt.getTime() <= now) throw new Unauthorized('The access token has expired.', true);
  return stored;
}

/**
 * The scopes an operation needs, from the security requirements the contract declares for it:
 * all scopes of at least one requirement. The refusal when the principal lacks them (undefined
 * when it has them); its challenge names the first requirement's scopes.
 */
export function scopeRefusal(principal: Principal, requirements: readonly (readonly string[])[]): InsufficientScope | undefined {
  if (requirements.length === 0) return undefined;
  const met = requirements.some((needed) => needed.every((scope) => principal.scopes.includes(scope)));
  return met ? undefined : new InsufficientScope(requirements[0]!);
}
