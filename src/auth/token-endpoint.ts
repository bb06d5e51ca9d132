/**
 * POST {auth_url}/oauth2/token: OAuth 2.0 client credentials grant (RFC 6749 §4.4), answered by
 * @node-oauth/oauth2-server on our storage model. Declared in openapi/auth.yaml (operation issueToken).
 */
import express, { type Request as ExpressRequest, type Response as ExpressResponse } from 'express';
import OAuth2Server, { OAuthError, Request, Response } from '@node-oauth/oauth2-server';
import type { Database } from '../database/prisma-client';
import { createOAuthModel } from './oauth-model';
import { type Environment, otherEnvironment } from './opaque-secrets';

export const TOKEN_LIFETIME_SECONDS = 900;
const BASIC_CHALLENGE = 'Basic realm="rental-guarantee", charset="UTF-8"';

export function createTokenRouter(db: Database, environment: Environment): express.Router {
  const server = new OAuth2Server({
    model: createOAuthModel(db, environment),
    accessTokenLifetime: TOKEN_LIFETIME_SECONDS,
    allowBearerTokensInQueryString: false,
  });
  const router = express.Router();
  router.post('/oauth2/token', express.urlencoded({ extended: false, limit: '10kb' }), async (req, res) => {
    // RFC 6749 §5.1/§5.2: token responses, errors included, must not be cached.
    res.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
    const refusal = refuseClientAuthentication(req.get('authorization'), environment);
    if (refusal) {
      res.set('WWW-Authenticate', BASIC_CHALLENGE);
      res.status(401).json({ error: 'invalid_client', error_description: refusal });
      return;
    }
    const oauthResponse = new Response(res);
    try {
      const token = await server.token(new Request(req), oauthResponse);
      res.status(200).json({
        access_token: token.accessToken,
        token_type: 'Bearer',
        expires_in: TOKEN_LIFETIME_SECONDS,
        scope: (token.scope ?? []).join(' '),
      });
    } catch (error) {
      sendOAuthError(res, error);
    }
  });
  return router;
}

/** Only HTTP Basic client authentication is offered (no credentials in the form body). */
function refuseClientAuthentication(authorization: string | undefined, environment: Environment): string | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '');
  if (!match) return 'Client authentication with HTTP Basic (client ID and client secret) is required.';
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  if (separator <= 0) return 'The Basic credentials must be "<client_id>:<client_secret>".';
  const other = otherEnvironment(decoded.slice(0, separator), environment);
  if (other) return `This client belongs to the ${other} environment; use the ${other} token endpoint.`;
  return undefined;
}

function sendOAuthError(res: ExpressResponse, error: unknown): void {
  if (error instanceof OAuthError && error.code < 500) {
    if (error.code === 401) res.set('WWW-Authenticate', BASIC_CHALLENGE);
    res.status(error.code).json({ error: error.name, error_description: error.message });
    return;
  }
  (res.req as ExpressRequest & { log?: { error: (obj: unknown, msg: string) => void } }).log?.error({ err: error }, 'token endpoint failure');
  res.status(500).json({ error: 'server_error', error_description: 'The token could not be issued; try again later.' });
}
