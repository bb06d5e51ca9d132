/**
 * POST /auth/oauth2/token with malformed credentials or bodies, and the work an unknown client ID
 * costs against a wrong secret (no timing oracle for valid client IDs: both cost one scrypt
 * verification; how long each takes is measured by `BENCH_ONLY=token make bench`).
 */
import request from 'supertest';
import { TOKEN_PATH } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { metrics } from '../../src/observability/metrics';
import { expectOAuthError, newCredential, tokenRequestFrom } from './token-harness';

// Every probing request comes from its own address, so that no lockout is reached here.
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
  /** The scrypt verifications this process made (the in-process app shares its registry). */
  const verifications = async () => (await metrics.secretVerifications.get()).values[0]?.value ?? 0;

  test('then an unknown client ID costs the same one secret verification as a wrong secret', async () => {
    const credential = await newCredential(t.db);
    for (let round = 0; round < 3; round++) {
      const beforeUnknown = await verifications();
      const unknown = await tokenRequestFrom(t.app, `192.0.2.${round * 2 + 1}`, `sbx_ci_unknown${round}`, 'sbx_cs_notthesecret');
      const unknownCost = (await verifications()) - beforeUnknown;
      const beforeWrong = await verifications();
      const wrong = await tokenRequestFrom(t.app, `192.0.2.${round * 2 + 2}`, credential.clientId, 'sbx_cs_notthesecret');
      const wrongCost = (await verifications()) - beforeWrong;
      expect([unknown.status, wrong.status]).toEqual([401, 401]);
      expect(unknown.body).toEqual(wrong.body);
      expect([unknownCost, wrongCost]).toEqual([1, 1]);
    }
  });
});
