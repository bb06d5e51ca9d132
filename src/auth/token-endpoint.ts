/**
 * POST {auth_url}/oauth2/token: OAuth 2.0 client credentials grant (RFC 6749 §4.4), answered by
 * @node-oauth/oauth2-server on our storage model, behind the brute-force protection of
 * token-guard.ts. Declared in openapi/auth.yaml (operation issueToken).
 */
import { metrics } from '../observability/metrics';
import { databaseFailed } from '../database/outage-log';
import express, { type NextFunction, type Request as ExpressRequest, type Response as ExpressResponse } from 'express';
import OAuth2Server, { type ClientCredentialsModel, OAuthError, Request, Response } from '@node-oauth/oauth2-server';
import type { Config } from '../config';
import type { Database } from '../database/prisma-client';
import { answeredUnavailable } from '../database/unavailable';
import { readBasicCredentials } from './basic-credentials';
import { createOAuthModel, type CredentialClient } from './oauth-model';
import { recordTokenIssued } from './secret-use';
import { clientAddress, sourceAddressKey } from './source-address';
import { type Lockout, TokenGuard } from './token-guard';
import { cutText } from '../validation/bounded-text';

export const TOKEN_LIFETIME_SECONDS = 900;
const BASIC_CHALLENGE = 'Basic realm="rental-guarantee", charset="UTF-8"';
/** A token request is a few form fields; the answer to a larger body says this limit (413). */
const BODY_LIMIT_BYTES = 10 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(ms, 0)));

/** token_requests_total's outcome per status of the token endpoint. */
const TOKEN_OUTCOMES: Record<number, string> = {
  200: 'issued',
  400: 'invalid_request',
  401: 'invalid_client',
  413: 'payload_too_large',
  429: 'locked_out',
  503: 'unavailable',
};

export function createTokenRouter(db: Database, config: Config): express.Router {
  const model = createOAuthModel(db, config.ENVIRONMENT);
  const guard = new TokenGuard(db, {
    failuresPerAddress: config.TOKEN_FAILURES_PER_ADDRESS,
    failuresPerClient: config.TOKEN_FAILURES_PER_CLIENT,
    failureWindowSeconds: config.TOKEN_FAILURE_WINDOW_SECONDS,
    lockoutSeconds: config.TOKEN_LOCKOUT_SECONDS,
    knownAddressDays: config.TOKEN_KNOWN_ADDRESS_DAYS,
  });
  const router = express.Router();
  router.use((_req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
    res.once('finish', () => metrics.tokens.inc({ outcome: TOKEN_OUTCOMES[res.statusCode] ?? (res.statusCode >= 500 ? 'server_error' : 'refused') }));
    next();
  });
  const noStore = (_req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
    // RFC 6749 §5.1/§5.2: token responses, errors included, must not be cached.
    res.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
    next();
  };
  router.post('/oauth2/token', noStore, express.urlencoded({ extended: false, limit: BODY_LIMIT_BYTES }), async (req, res) => {
    // One door: credentials come only from the Basic header. The library would read them from the
    // body when it cannot read the header; refused here, before any lookup, and counted nowhere.
    if (bodyHoldsClientCredentials(req.body)) {
      res.status(400).json({
        error: 'invalid_request',
        error_description:
          'Client credentials are accepted only in the Authorization header (HTTP Basic); remove client_id and client_secret from the form body.',
      });
      return;
    }
    const reading = readBasicCredentials(req.get('authorization'), config.ENVIRONMENT);
    if (!reading.ok) {
      if (reading.status === 401) res.set('WWW-Authenticate', BASIC_CHALLENGE);
      res.status(reading.status).json({ error: reading.error, error_description: reading.description });
      return;
    }
    const address = sourceAddressKey(req.ip);
    // A flood that is locked out ends here: no queue, no scrypt.
    const quick = await guard.quickRefusal(address, reading.clientId);
    if (quick) return sendLockout(res, quick, config.TOKEN_LOCKOUT_ANSWER_DELAY_MS);
    let lockout: Lockout | undefined;
    const guardedModel: ClientCredentialsModel = {
      ...model,
      // The library's own reading of the credentials is ignored: the guard counts, and the model
      // verifies, the client ID and secret of this endpoint's one reading.
      async getClient() {
        const outcome = await guard.authenticate(address, reading.clientId, () => model.getClient(reading.clientId, reading.secret));
        if ('lockout' in outcome) lockout = outcome.lockout;
        return 'client' in outcome ? outcome.client : false;
      },
      // Issue 37: each secret's last use (when, from where, tokens in 24 h), read in credential views.
      async saveToken(token, client, user) {
        const saved = await model.saveToken(token, client, user);
        await recordTokenIssued(db, (client as CredentialClient).secretId, clientAddress(req.ip));
        return saved;
      },
    };
    // The library validates the form and the grant before and after getClient; its server holds no
    // state, so one per request carries this request's reading into the model.
    const server = new OAuth2Server({ model: guardedModel, accessTokenLifetime: TOKEN_LIFETIME_SECONDS, allowBearerTokensInQueryString: false });
    // The library sees the Basic header re-encoded from the reading, so it cannot read another client.
    const oauthRequest = new Request({
      method: req.method,
      query: {},
      headers: { ...singleValuedHeaders(req), authorization: reading.canonicalHeader },
      body: req.body as Record<string, unknown>,
    });
    try {
      const token = await server.token(oauthRequest, new Response(res));
      res.status(200).json({
        access_token: token.accessToken,
        token_type: 'Bearer',
        expires_in: TOKEN_LIFETIME_SECONDS,
        scope: (token.scope ?? []).join(' '),
      });
    } catch (error) {
      if (lockout) await sendLockout(res, lockout, config.TOKEN_LOCKOUT_ANSWER_DELAY_MS);
      else sendOAuthError(res, error);
    }
  });
  // Body-parser failures of this endpoint get its own error body (RFC 6749 §5.2) and its own limit.
  router.use('/oauth2/token', (error: unknown, _req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
    const { type, status } = (error ?? {}) as { type?: unknown; status?: unknown };
    if (typeof type !== 'string' || typeof status !== 'number' || status >= 500) return next(error);
    if (type === 'entity.too.large') {
      res.status(413).json({
        error: 'invalid_request',
        error_description: `The request body is larger than ${BODY_LIMIT_BYTES / 1024} KB (${BODY_LIMIT_BYTES} bytes).`,
      });
    } else {
      res.status(400).json({ error: 'invalid_request', error_description: 'The request body could not be read as a UTF-8 form.' });
    }
  });
  return router;
}

/**
 * 429 with RFC 6749 §5.2's body, held `delayMs` first (never past the lockout's end): each
 * connection of a flood then sends at most one request per delay, so a locked-out attacker costs
 * the service, and the clients it serves meanwhile, next to nothing.
 * `temporarily_unavailable` is RFC 6749's code for "cannot handle the request now, try later"
 * (§4.1.2.1). `invalid_client` would be wrong: the secret was not looked at, and RFC 6749 ties that
 * code to 401 with a challenge, which tells a client to fix its credentials rather than wait.
 */
async function sendLockout(res: ExpressResponse, lockout: Lockout, delayMs: number): Promise<void> {
  await sleep(Math.min(delayMs, lockout.endsAt - Date.now()));
  const retryAfterSeconds = Math.max(1, Math.ceil((lockout.endsAt - Date.now()) / 1000));
  const what = lockout.scope === 'address' ? 'from this address' : 'for this client ID';
  res.set('Retry-After', String(retryAfterSeconds));
  res.status(429).json({
    error: 'temporarily_unavailable',
    error_description: `Too many failed client authentications ${what}; retry after ${retryAfterSeconds} seconds.`,
  });
}

/** The request's headers that hold one value (the library's type is a string per header). */
function singleValuedHeaders(req: ExpressRequest): Record<string, string> {
  return Object.fromEntries(Object.entries(req.headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

/** `client_id` or `client_secret` among the form's fields, whatever their values (RFC 6749 §2.3.1 lets a server refuse them). */
function bodyHoldsClientCredentials(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (Object.hasOwn(body, 'client_id') || Object.hasOwn(body, 'client_secret'));
}

function sendOAuthError(res: ExpressResponse, error: unknown): void {
  if (error instanceof OAuthError && error.code < 500) {
    if (error.code === 401) res.set('WWW-Authenticate', BASIC_CHALLENGE);
    // The library's message, cut to the 500 characters the Authorization API declares for it.
    res.status(error.code).json({ error: error.name, error_description: cutText(error.message, 500) });
    return;
  }
  // The library wraps what the model throws in its ServerError, keeping the original as `inner`.
  const inner = error instanceof OAuthError ? (error as OAuthError & { inner?: unknown }).inner : undefined;
  const cause = inner ?? error;
  if (answeredUnavailable(cause)) {
    databaseFailed(cause);
    // Nothing was issued or counted: like the API's 503, the client retries after Retry-After.
    res.set('Retry-After', '1');
    res.status(503).json({ error: 'temporarily_unavailable', error_description: 'The service is temporarily unavailable; retry after 1 second.' });
    return;
  }
  (res.req as ExpressRequest & { log?: { error: (obj: unknown, msg: string) => void } }).log?.error({ err: error }, 'token endpoint failure');
  res.status(500).json({ error: 'server_error', error_description: 'The token could not be issued; try again later.' });
}
