/**
 * Helpers of the token-protection suites: credentials without a token, and token requests from
 * a chosen source address, either through a trusted proxy's X-Forwarded-For (in-process apps with
 * TRUST_PROXY=loopback) or from a real loopback address (service processes).
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';
import { createCredential, type CreatedCredential } from '../../src/auth/credentials';
import { SCOPES } from '../../src/auth/scopes';
import type { Database } from '../../src/database/prisma-client';
import { TOKEN_PATH } from '../support/partner-api';

/** A partner credential of a new agency, without asking for a token (that would make its address known). */
export function newCredential(db: Database): Promise<CreatedCredential> {
  return createCredential(db, 'sandbox', {
    companyId: `agency-${randomBytes(4).toString('hex')}`,
    displayName: 'Token protection test',
    scopes: [...SCOPES],
    createdBy: 'test',
  });
}

/** A token request through a trusted proxy that says the client is `address`. */
export function tokenRequestFrom(app: Express, address: string, clientId: string, secret: string) {
  return request(app).post(TOKEN_PATH).set('X-Forwarded-For', address).auth(clientId, secret).type('form').send({ grant_type: 'client_credentials' });
}

/** An OAuth error body of RFC 6749 §5.2 shape (no other field). */
export function expectOAuthError(body: unknown, error: string): void {
  expect(body).toEqual({ error, error_description: expect.any(String) });
}

export interface TokenAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** POST a token request over a real socket bound to `localAddress` (a 127.x.y.z address on Linux). */
export function postTokenFrom(origin: string, localAddress: string, clientId: string, secret: string, agent?: http.Agent): Promise<TokenAnswer> {
  const form = 'grant_type=client_credentials';
  const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64');
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      `${origin}${TOKEN_PATH}`,
      {
        method: 'POST',
        localAddress,
        agent,
        headers: { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': form.length },
      },
      (incoming) => {
        let body = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk: string) => (body += chunk));
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body }));
        incoming.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(form);
  });
}
