/**
 * Step 1: an access token by OAuth 2.0 client credentials (RFC 6749 §4.4) from {auth_url}. The
 * token endpoint belongs to the Authorization API document, not to the partner document, so its
 * answer is checked against RFC 6749 §5.1 and the rules of the partner document's introduction.
 * The secret and the token are never recorded: the report shows only the status and the problems.
 */
import type { Session } from './session.js';
import type { JourneyState, Step } from './steps.js';

export interface Credentials {
  authUrl: string;
  clientId: string;
  clientSecret: string;
}

/** RFC 6749 §2.3.1: client id and secret are form-urlencoded before Basic encoding. */
const formEncode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);

export function tokenStep(credentials: Credentials): Step {
  return {
    name: 'obtain an access token (client credentials)',
    async run(session: Session, state: JourneyState) {
      const started = Date.now();
      const basic = Buffer.from(`${formEncode(credentials.clientId)}:${formEncode(credentials.clientSecret)}`).toString('base64');
      const response = await fetch(`${credentials.authUrl.replace(/\/+$/, '')}/oauth2/token`, {
        method: 'POST',
        headers: { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
        body: 'grant_type=client_credentials',
        signal: AbortSignal.timeout(30_000),
      });
      const body = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
      const where = `POST /oauth2/token -> ${response.status}`;
      session.recordExchange({ method: 'POST', path: '/oauth2/token', status: response.status, durationMs: Date.now() - started });
      if (!session.check(response.status === 200, `${where}: expected 200${typeof body?.['error'] === 'string' ? ` (error ${body['error']})` : ''}`)) return;
      session.check(typeof body?.['access_token'] === 'string' && body['access_token'] !== '', `${where}: access_token missing`);
      session.check(String(body?.['token_type']).toLowerCase() === 'bearer', `${where}: token_type must be Bearer`);
      session.check(Number.isInteger(body?.['expires_in']) && Number(body?.['expires_in']) > 0, `${where}: expires_in must be a positive integer`);
      session.check(typeof body?.['scope'] === 'string', `${where}: scope (the granted scopes) missing`);
      session.check(/no-store/.test(response.headers.get('cache-control') ?? ''), `${where}: Cache-Control: no-store missing (RFC 6749 §5.1)`);
      session.token = String(body?.['access_token'] ?? '');
      state.grantedScopes = String(body?.['scope'] ?? '').split(' ').filter(Boolean);
      const missing = ['ri:rental-insurances:read', 'ri:rental-insurances:write'].filter((scope) => !state.grantedScopes.includes(scope));
      session.check(missing.length === 0, `the credential lacks ${missing.join(' and ')}: the journey needs both guarantee scopes`);
    },
  };
}
