/** POST /auth/oauth2/token: the client credentials grant and each RFC 6749 error case. */
import type { Response } from 'supertest';
import { ANONYMOUS, asPartner, TOKEN_PATH } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { hashAccessToken } from '../../src/auth/opaque-secrets';

const world = useTestApp();
const anonymous = asPartner(world, ANONYMOUS);

const tokenRequest = () => anonymous.tokenRequest();

function expectNoStore(response: Response) {
  expect(response.headers['cache-control']).toBe('no-store');
  expect(response.headers['pragma']).toBe('no-cache');
  expect(response.headers['x-correlation-id']).toEqual(expect.any(String));
}

describe('When a partner asks for a token with valid credentials', () => {
  test('then it gets an opaque 900-second Bearer token with every permission of the credential', async () => {
    const agency = await world.newAgency({ scopes: ['ri:rental-insurances:read', 'ri:rental-insurances:write'] });
    const response = await tokenRequest().auth(agency.clientId, agency.clientSecret).send({ grant_type: 'client_credentials' });
    expect(response.status).toBe(200);
    expectNoStore(response);
    expect(response.body).toEqual({
      access_token: expect.stringMatching(/^sbx_at_[A-Za-z0-9_-]{43}$/),
      token_type: 'Bearer',
      expires_in: 900,
      scope: 'ri:rental-insurances:read ri:rental-insurances:write',
    });
    const stored = await world.db.accessToken.findUnique({ where: { tokenHash: hashAccessToken(response.body.access_token) } });
    expect(stored?.companyId).toBe(agency.companyId);
    expect(stored?.scopes).toEqual(['ri:rental-insurances:read', 'ri:rental-insurances:write']);
    const lifetime = stored!.expiresAt.getTime() - stored!.createdAt.getTime();
    expect(Math.abs(lifetime - 900_000)).toBeLessThan(5_000);
    // Only a hash is stored: the token itself appears nowhere in the table.
    const raw = await world.db.$queryRawUnsafe<unknown[]>(`SELECT * FROM access_tokens WHERE token_hash = $1`, response.body.access_token);
    expect(raw).toHaveLength(0);
  });

  test('then a narrower requested scope is granted as asked', async () => {
    const agency = await world.newAgency();
    const response = await tokenRequest()
      .auth(agency.clientId, agency.clientSecret)
      .send({ grant_type: 'client_credentials', scope: 'ri:rental-insurances:read' });
    expect(response.status).toBe(200);
    expect(response.body.scope).toBe('ri:rental-insurances:read');
  });

  test('then form-urlencoded Basic credentials (RFC 6749 §2.3.1) are decoded', async () => {
    const agency = await world.newAgency();
    const encodedId = encodeURIComponent(agency.clientId).replace(/_/g, '%5F');
    const response = await tokenRequest().auth(encodedId, agency.clientSecret).send({ grant_type: 'client_credentials' });
    expect(response.status).toBe(200);
  });
});

describe('When the token request is wrong', () => {
  test('then a bad secret is 401 invalid_client with a Basic challenge', async () => {
    const agency = await world.newAgency();
    const response = await tokenRequest().auth(agency.clientId, 'sbx_cs_wrong').send({ grant_type: 'client_credentials' });
    expect(response.status).toBe(401);
    expectNoStore(response);
    expect(response.headers['www-authenticate']).toBe('Basic realm="rental-guarantee", charset="UTF-8"');
    expect(response.body).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
  });

  test('then an unknown client is 401 invalid_client', async () => {
    const response = await tokenRequest().auth('sbx_ci_unknown', 'whatever').send({ grant_type: 'client_credentials' });
    expect(response.status).toBe(401);
    expect(response.body.error).toBe('invalid_client');
    expect(response.headers['www-authenticate']).toMatch(/^Basic realm=/);
  });

  test('then a missing Basic header is 401 invalid_client with a Basic challenge', async () => {
    const response = await tokenRequest().send({ grant_type: 'client_credentials' });
    expect(response.status).toBe(401);
    expectNoStore(response);
    expect(response.body.error).toBe('invalid_client');
    expect(response.headers['www-authenticate']).toMatch(/^Basic realm="rental-guarantee"/);
  });

  test('then credentials in the form body are 400 invalid_request saying to use HTTP Basic, and get no token', async () => {
    const agency = await world.newAgency();
    const response = await tokenRequest().send({
      grant_type: 'client_credentials',
      client_id: agency.clientId,
      client_secret: agency.clientSecret,
    });
    expect(response.status).toBe(400);
    expectNoStore(response);
    expect(response.body).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(/Authorization header \(HTTP Basic\)/) });
    expect(response.headers['www-authenticate']).toBeUndefined();
  });

  test('then a production client sent to the sandbox fails at once with a clear message', async () => {
    const response = await tokenRequest().auth('prd_ci_abc', 'prd_cs_abc').send({ grant_type: 'client_credentials' });
    expect(response.status).toBe(401);
    expect(response.body.error_description).toMatch(/production environment/);
  });

  test.each([
    ['password', 'unauthorized_client'],
    ['authorization_code', 'unauthorized_client'],
    ['urn:example:unknown', 'unsupported_grant_type'],
  ])('then grant_type=%s is 400 %s', async (grantType, error) => {
    const agency = await world.newAgency();
    const response = await tokenRequest().auth(agency.clientId, agency.clientSecret).send({ grant_type: grantType });
    expect(response.status).toBe(400);
    expectNoStore(response);
    expect(response.body.error).toBe(error);
  });

  test('then a missing grant_type is 400 invalid_request', async () => {
    const agency = await world.newAgency();
    const response = await tokenRequest().auth(agency.clientId, agency.clientSecret).send({});
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_request');
  });

  test('then a scope beyond the permissions is 400 invalid_scope, never silently narrowed', async () => {
    const agency = await world.newAgency({ scopes: ['ri:rental-insurances:read'] });
    const response = await tokenRequest()
      .auth(agency.clientId, agency.clientSecret)
      .send({ grant_type: 'client_credentials', scope: 'ri:rental-insurances:read ri:rental-insurances:write' });
    expect(response.status).toBe(400);
    expectNoStore(response);
    expect(response.body.error).toBe('invalid_scope');
    expect(await world.db.accessToken.count({ where: { credentialId: agency.credentialId } })).toBe(1); // only the helper's token
  });

  test('then an unknown scope is 400 invalid_scope', async () => {
    const agency = await world.newAgency();
    const response = await tokenRequest().auth(agency.clientId, agency.clientSecret).send({ grant_type: 'client_credentials', scope: 'admin' });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_scope');
  });

  test('then a JSON body is 400 invalid_request', async () => {
    const agency = await world.newAgency();
    const response = await anonymous
      .request('post', TOKEN_PATH)
      .auth(agency.clientId, agency.clientSecret)
      .send({ grant_type: 'client_credentials' });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_request');
  });

  test('then GET on the token endpoint is 405 with Allow: POST', async () => {
    const response = await anonymous.request('get', TOKEN_PATH);
    expect(response.status).toBe(405);
    expect(response.headers['allow']).toBe('POST');
    expect(response.body.code).toBe('method_not_allowed');
  });
});
