/**
 * POST /auth/oauth2/token with malformed credentials or bodies, and the timing of unknown client
 * IDs against wrong secrets (no timing oracle for valid client IDs).
 */
import request from 'supertest';
import { TOKEN_PATH } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { expectOAuthError, median, newCredential, tokenRequestFrom } from './token-harness';

// Every timed request comes from its own address, so that no lockout is reached here.
const t = useTestApp({ TRUST_PROXY: 'loopback' });

const basic = (raw: string) => `Basic ${Buffer.from(raw, 'utf8').toString('base64')}`;
const tokenRequest = (authorization: string) =>
  request(t.app).post(TOKEN_PATH).set('Authorization', authorization).type('form').send({ grant_type: 'client_credentials' });

function expectNoStore(response: request.Response): void {
  expect(response.headers['cache-control']).toBe('no-store');
  expect(response.headers['pragma']).toBe('no-cache');
}

describe('When the Basic credentials hold a control character', () => {
  test.each([
    ['a NUL byte in the client ID', 'sbx_ci_abc\u0000def:sbx_cs_secret'],
    ['a form-encoded NUL (%00) in the client ID', 'sbx_ci_abc%00def:sbx_cs_secret'],
    ['a NUL byte in the secret', 'sbx_ci_abc:sbx_cs_se\u0000cret'],
    ['a unit separator in the client ID', 'sbx_ci_abc\u001f:sbx_cs_secret'],
    ['a DEL in the secret', 'sbx_ci_abc:sbx_cs_secret\u007f'],
    ['a C1 control in the client ID', 'sbx_ci_\u0085abc:sbx_cs_secret'],
  ])('then %s is 400 invalid_request', async (_case, raw) => {
    const response = await tokenRequest(basic(raw));
    expect(response.status).toBe(400);
    expectNoStore(response);
    expectOAuthError(response.body, 'invalid_request');
    expect(response.headers['www-authenticate']).toBeUndefined();
  });

  test('then a real credential with a NUL appended to its ID is refused the same way', async () => {
    const credential = await newCredential(t.db);
    const response = await tokenRequest(basic(`${credential.clientId}\u0000:${credential.clientSecret}`));
    expect(response.status).toBe(400);
    expectOAuthError(response.body, 'invalid_request');
  });
});

describe('When the token request body is too large', () => {
  test('then above 10 KB it is 413 invalid_request saying the endpoint limit, 10 KB', async () => {
    const credential = await newCredential(t.db);
    const response = await request(t.app)
      .post(TOKEN_PATH)
      .auth(credential.clientId, credential.clientSecret)
      .type('form')
      .send(`grant_type=client_credentials&padding=${'x'.repeat(10 * 1024)}`);
    expect(response.status).toBe(413);
    expectNoStore(response);
    expectOAuthError(response.body, 'invalid_request');
    expect(response.body.error_description).toBe('The request body is larger than 10 KB (10240 bytes).');
  });

  test('then just under 10 KB it is read and answered as usual', async () => {
    const credential = await newCredential(t.db);
    const response = await request(t.app)
      .post(TOKEN_PATH)
      .auth(credential.clientId, credential.clientSecret)
      .type('form')
      .send(`grant_type=client_credentials&padding=${'x'.repeat(9 * 1024)}`);
    expect(response.status).toBe(200);
  });
});

describe('When a caller probes client IDs', () => {
  test('then an unknown client ID and a wrong secret answer in comparable time', async () => {
    const credential = await newCredential(t.db);
    const unknown: number[] = [];
    const wrong: number[] = [];
    const timed = async (into: number[], address: string, clientId: string) => {
      const started = performance.now();
      const response = await tokenRequestFrom(t.app, address, clientId, 'sbx_cs_notthesecret');
      into.push(performance.now() - started);
      expect(response.status).toBe(401);
    };
    for (let round = 0; round < 7; round++) {
      await timed(unknown, `192.0.2.${round * 2 + 1}`, `sbx_ci_unknown${round}`);
      await timed(wrong, `192.0.2.${round * 2 + 2}`, credential.clientId);
    }
    // Before the dummy verification an unknown ID answered about ten times faster (8.7 ms against
    // 85 ms). A factor of 2.5 either way leaves room for a busy machine and still catches that.
    const ratio = median(unknown) / median(wrong);
    expect(ratio).toBeGreaterThan(1 / 2.5);
    expect(ratio).toBeLessThan(2.5);
  });
});
