/**
 * The pipeline's one door from a request to a principal (issue 37): a Bearer token (every API), or
 * the console's session cookie where the operation's contract accepts it (`consoleSession`). A
 * request with an Authorization header is judged by its token alone. A session stands for its
 * person's scopes exactly as a token of that kind would; cross-site requests cannot use it:
 *   - the cookie is SameSite=Strict (a browser does not send it from another site);
 *   - `X-Console-Request: 1` is required, a header an HTML form cannot send and another origin cannot
 *     send without a CORS preflight the service never grants;
 *   - a write must carry an Origin equal to the service's own, and any Origin or Sec-Fetch-Site sent
 *     must say same origin.
 */
import { ApiError } from '../errors';
import type { BearerAuthenticator } from './bearer-authenticator';
import type { Queryable } from '../database/prisma-client';
import { type Environment, otherEnvironment } from './opaque-secrets';
import { Unauthorized, type Principal } from './principal';
import { findLiveSession, hashSessionToken, sessionCookieValue, type SessionTimes } from './session-store';

export interface CallerRequest {
  headers: Record<string, string | string[] | undefined>;
  method: string;
  /** The service's own origin as the caller reached it (PUBLIC_ORIGIN, or the request's). */
  origin: string;
  acceptsBearer: boolean;
  acceptsSession: boolean;
}

export class CrossSiteRefused extends ApiError {
  constructor(message: string) {
    // The challenge says the other way in: a Bearer token (the console itself sends what is missing here).
    super(403, 'cross_site_refused', message, undefined, { 'WWW-Authenticate': 'Bearer realm="rental-guarantee"' });
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * What only the console's own pages send: `X-Console-Request: 1`, an Origin equal to the service's
 * on a write (and whenever one is sent), no cross-site Sec-Fetch-Site. Required with the session,
 * and on every request of the console's own API (its sign-in ceremonies included: another site
 * cannot sign a browser in to an account of its choosing).
 */
export function assertConsolePage(request: Pick<CallerRequest, 'headers' | 'method' | 'origin'>): void {
  if (single(request.headers['x-console-request']) !== '1') {
    throw new CrossSiteRefused('A console request must send X-Console-Request: 1 (it is refused from forms and other sites).');
  }
  const origin = single(request.headers['origin']);
  if (origin !== undefined ? origin !== request.origin : !SAFE_METHODS.has(request.method)) {
    throw new CrossSiteRefused(
      `A console request must come from ${request.origin} (Origin: ${origin === undefined ? 'absent, on a write' : 'another site'}).`,
    );
  }
  const site = single(request.headers['sec-fetch-site']);
  if (site !== undefined && site !== 'same-origin')
    throw new CrossSiteRefused('A console request must come from the console itself (Sec-Fetch-Site).');
}

const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

export class CallerAuthenticator {
  constructor(
    private readonly bearer: BearerAuthenticator,
    /** Absent: no API of this app accepts sessions (or the console is not served). */
    private readonly sessions?: { db: Queryable; environment: Environment; times: SessionTimes },
  ) {}

  async principalOf(request: CallerRequest): Promise<Principal> {
    const authorization = single(request.headers['authorization']);
    const cookie = this.sessions && request.acceptsSession ? sessionCookieValue(single(request.headers['cookie'])) : undefined;
    if (authorization !== undefined || cookie === undefined) {
      if (!request.acceptsBearer)
        throw new Unauthorized('This operation needs a console session: sign in to the console.', authorization !== undefined);
      return this.bearer.principalOf(authorization);
    }
    return this.sessionPrincipal(cookie, request);
  }

  private async sessionPrincipal(token: string, request: CallerRequest): Promise<Principal> {
    const { db, environment, times } = this.sessions!;
    assertConsolePage(request);
    if (token.length > 200) throw new Unauthorized('The console session is unknown or has ended; sign in again.', true);
    const other = otherEnvironment(token, environment);
    if (other) throw new Unauthorized(`This console session was started in the ${other} environment; sign in here.`, true);
    const session = await findLiveSession(db, hashSessionToken(token), times);
    if (!session) throw new Unauthorized('The console session is unknown or has ended; sign in again.', true);
    return {
      companyId: session.companyId,
      credentialId: session.personId,
      clientId: `console:${session.personId}`,
      displayName: `${session.name} (${session.kind})`,
      scopes: session.scopes,
      kind: session.kind,
      personName: session.name,
      session: { tokenHash: session.tokenHash, personId: session.personId },
    };
  }
}
