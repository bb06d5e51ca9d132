/**
 * One door at the token endpoint: the client's identity comes from one reading of the HTTP Basic
 * header, the brute-force guard and the OAuth library both use it, and client credentials in the
 * form body are refused. The cases of issue 23 (a TAB after `Basic`, `=` inside the base64, a
 * client ID in the header and another one's secret in the body) cannot reach a locked-out client
 * ID's secret, and a failure is charged to the client ID whose secret was checked.
 */
import { createHash } from 'node:crypto';
import request from 'supertest';
import { TOKEN_PATH } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import type { CreatedCredential } from '../../src/auth/credentials';
import { expectOAuthError, newCredential, tokenRequestFrom } from './token-harness';

const t = useTestApp({
  TRUST_PROXY: 'loopback',
  TOKEN_FAILURES_PER_ADDRESS: '50',
  TOKEN_FAILURES_PER_CLIENT: '3',
  TOKEN_FAILURE_WINDOW_SECONDS: '600',
  TOKEN_LOCKOUT_SECONDS: '600',
  TOKEN_LOCKOUT_ANSWER_DELAY_MS: '0',
});

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const basicOf = (clientId: string, secret: string) => `Basic ${base64(`${clientId}:${secret}`)}`;

/** A token request from `address` with a hand-made Authorization header and form body. */
const rawTokenRequest = (address: string, authorization: string | undefined, form: Record<string, string>) => {
  const pending = request(t.app).post(TOKEN_PATH).set('X-Forwarded-For', address).type('form');
  if (authorization !== undefined) pending.set('Authorization', authorization);
  return pending.send({ grant_type: 'client_credentials', ...form });
};

/** The stored failure count of a client ID (token-guard.ts keys client IDs by their SHA-256). */
async function failuresOf(clientId: string): Promise<number> {
  const key = `token_client:${createHash('sha256').update(clientId).digest('base64url')}`;
  return (await t.db.tokenRateLimit.findUnique({ where: { key } }))?.points ?? 0;
}

const tokensOf = (credential: CreatedCredential) => t.db.accessToken.count({ where: { credentialId: credential.credentialId } });

/** A credential whose client ID is locked out (3 failures from 3 addresses, none of them its own). */
async function lockedOutVictim(): Promise<CreatedCredential> {
  const victim = await newCredential(t.db);
  for (const address of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
    expect((await tokenRequestFrom(t.app, address, victim.clientId, 'sbx_cs_wrong')).status).toBe(401);
  }
  const locked = await tokenRequestFrom(t.app, '203.0.113.4', victim.clientId, victim.clientSecret);
  expect(locked.status).toBe(429);
  return victim;
}

describe('When a client ID is locked out and its secret is sent around the Basic header', () => {
  test("then a header the library would not read, with the victim's credentials in the body, gets no token and costs the victim nothing", async () => {
    const victim = await lockedOutVictim();
    const decoy = await newCredential(t.db);
    const victimInBody = { client_id: victim.clientId, client_secret: victim.clientSecret };
    const decoyBasic = base64(`${decoy.clientId}:sbx_cs_anything`);
    const cases = [
      ['a TAB after Basic', `Basic\t${decoyBasic}`],
      ['an = inside the base64', `Basic ${decoyBasic.slice(0, 8)}=${decoyBasic.slice(8)}`],
      ['a well-formed header', `Basic ${decoyBasic}`],
      ['no header at all', undefined],
    ] as const;
    for (const [, authorization] of cases) {
      const answer = await rawTokenRequest('198.51.100.77', authorization, victimInBody);
      expect(answer.status).toBe(400);
      expectOAuthError(answer.body, 'invalid_request');
      expect(answer.body.error_description).toMatch(/only .*HTTP Basic|Authorization header/);
      expect(answer.headers['www-authenticate']).toBeUndefined();
      expect(answer.headers['cache-control']).toBe('no-store');
    }
    expect(await tokensOf(victim)).toBe(0);
    // Refused before any secret was checked: nothing was charged to either client ID.
    expect(await failuresOf(decoy.clientId)).toBe(0);
    expect(await failuresOf(victim.clientId)).toBe(3);
    // The victim's lockout holds, its right secret included.
    expect((await tokenRequestFrom(t.app, '198.51.100.78', victim.clientId, victim.clientSecret)).status).toBe(429);
  });

  test("then the victim's own credentials in a malformed Basic header fail closed as invalid_client", async () => {
    const victim = await lockedOutVictim();
    const victimBasic = base64(`${victim.clientId}:${victim.clientSecret}`);
    for (const authorization of [
      `Basic\t${victimBasic}`,
      `Basic ${victimBasic.slice(0, 12)}=${victimBasic.slice(12)}`,
      `Basic ${victimBasic}===`,
      `Basic ${victimBasic} extra`,
    ]) {
      const answer = await rawTokenRequest('198.51.100.79', authorization, {});
      expect(answer.status).toBe(401);
      expectOAuthError(answer.body, 'invalid_client');
      expect(answer.body.error_description).toMatch(/not valid HTTP Basic/);
      expect(answer.headers['www-authenticate']).toMatch(/^Basic realm="rental-guarantee"/);
    }
    expect(await tokensOf(victim)).toBe(0);
    expect((await tokenRequestFrom(t.app, '198.51.100.80', victim.clientId, victim.clientSecret)).status).toBe(429);
  });
});

describe('When a client sends its credentials in the form body', () => {
  test('then it is 400 invalid_request saying to use HTTP Basic, even with the right Basic header too', async () => {
    const credential = await newCredential(t.db);
    const basic = basicOf(credential.clientId, credential.clientSecret);
    for (const [authorization, form] of [
      [undefined, { client_id: credential.clientId, client_secret: credential.clientSecret }],
      [basic, { client_id: credential.clientId, client_secret: credential.clientSecret }],
      [basic, { client_id: credential.clientId }],
      [basic, { client_secret: credential.clientSecret }],
      [basic, { client_id: '' }],
    ] as const) {
      const answer = await rawTokenRequest('198.51.100.90', authorization, form);
      expect(answer.status).toBe(400);
      expectOAuthError(answer.body, 'invalid_request');
    }
    expect(await tokensOf(credential)).toBe(0);
    // Without them, the same header gets its token.
    expect((await rawTokenRequest('198.51.100.90', basic, {})).status).toBe(200);
  });
});

describe('When the Basic header is well-formed', () => {
  test('then a wrong secret is charged to the client ID of the header, and only to it', async () => {
    const charged = await newCredential(t.db);
    const bystander = await newCredential(t.db);
    // Several spaces after the scheme and a lower-case scheme are valid HTTP (RFC 9110 §11.4).
    const answer = await rawTokenRequest('198.51.100.91', `basic   ${base64(`${charged.clientId}:sbx_cs_wrong`)}`, {});
    expect(answer.status).toBe(401);
    expectOAuthError(answer.body, 'invalid_client');
    expect(await failuresOf(charged.clientId)).toBe(1);
    expect(await failuresOf(bystander.clientId)).toBe(0);
    const right = await rawTokenRequest('198.51.100.91', `basic   ${base64(`${charged.clientId}:${charged.clientSecret}`)}`, {});
    expect(right.status).toBe(200);
  });

  test('then an unpadded base64 is read like the padded one', async () => {
    const credential = await newCredential(t.db);
    // Form-encoding an underscore (%5F, RFC 6749 §2.3.1) lengthens the ID until its base64 is padded.
    let clientId = credential.clientId;
    while (!base64(`${clientId}:${credential.clientSecret}`).endsWith('=')) clientId = clientId.replace('_', '%5F');
    const unpadded = base64(`${clientId}:${credential.clientSecret}`).replace(/=+$/, '');
    expect((await rawTokenRequest('198.51.100.92', `Basic ${unpadded}`, {})).status).toBe(200);
  });
});
