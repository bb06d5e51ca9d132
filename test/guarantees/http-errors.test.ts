/** Authentication, scopes, body parsing, routing and correlation ids of the guarantee endpoints. */
import request from 'supertest';
import { guaranteeBody, newKey } from '../support/factories';
import { expectErrorBody } from '../support/error-body';
import { API, startTestApp, type Agency, type TestApp } from '../support/test-app';
import { COLLECTION, countGuarantees, created, GENERATED_CORRELATION_ID, getGuarantee, itemPath, listGuarantees, patchGuarantee, postGuarantee } from './guarantee-http';

let t: TestApp;
let agency: Agency;
beforeAll(async () => {
  t = await startTestApp();
  agency = await t.newAgency();
});
afterAll(() => t.close());

const READ = 'ri:rental-insurances:read';
const WRITE = 'ri:rental-insurances:write';

describe('When a request carries no valid token', () => {
  test('then a list without Authorization is 401 unauthorized with a Bearer challenge without error attribute', async () => {
    const response = await request(t.app).get(COLLECTION).set('X-Correlation-Id', 'no-token-1');
    expectErrorBody(response, 401, 'unauthorized');
    expect(response.headers['www-authenticate']).toBe('Bearer realm="rental-guarantee"');
    expect(response.headers['x-correlation-id']).toBe('no-token-1');
    expect(response.body.correlationId).toBe('no-token-1');
  });

  test('then a create without Authorization is 401 and nothing is created', async () => {
    const before = await countGuarantees(t);
    const response = await request(t.app).post(COLLECTION).set('Idempotency-Key', newKey()).send(guaranteeBody());
    expectErrorBody(response, 401, 'unauthorized');
    expect(await countGuarantees(t)).toBe(before);
  });

  test.each([
    ['an unknown token', 'Bearer sbx_at_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['a malformed header', 'Token abc'],
    ['a production token in the sandbox', 'Bearer prd_at_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
  ])('then %s is 401 unauthorized with error="invalid_token"', async (_label, authorization) => {
    const guarantee = await created(t, agency);
    const response = await request(t.app).get(itemPath(guarantee.id)).set('Authorization', authorization);
    expectErrorBody(response, 401, 'unauthorized');
    expect(response.headers['www-authenticate']).toBe('Bearer realm="rental-guarantee", error="invalid_token"');
  });

  test('then a patch without token is 401 even without If-Match and Idempotency-Key', async () => {
    const guarantee = await created(t, agency);
    const response = await request(t.app)
      .patch(itemPath(guarantee.id))
      .set('Content-Type', 'application/merge-patch+json')
      .send(JSON.stringify({ externalId: 'X' }));
    expectErrorBody(response, 401, 'unauthorized');
  });
});

describe('When a token lacks the scope of the operation', () => {
  test('then a read-only token creating is 403 insufficient_scope naming the write scope, and nothing is created', async () => {
    const readOnly = await t.newAgency({ scopes: [READ] });
    const response = await postGuarantee(t, readOnly, guaranteeBody()).set('X-Correlation-Id', 'scope-1');
    expectErrorBody(response, 403, 'insufficient_scope');
    expect(response.headers['www-authenticate']).toBe(`Bearer realm="rental-guarantee", error="insufficient_scope", scope="${WRITE}"`);
    expect(response.body.correlationId).toBe('scope-1');
    expect(await countGuarantees(t, readOnly)).toBe(0);
  });

  test('then a read-only token patching is 403 and nothing changes', async () => {
    const readOnly = await t.newAgency({ scopes: [READ], companyId: agency.companyId });
    const guarantee = await created(t, agency);
    const response = await patchGuarantee(t, readOnly, guarantee.id, { externalId: 'X' });
    expectErrorBody(response, 403, 'insufficient_scope');
    expect(response.headers['www-authenticate']).toContain(`scope="${WRITE}"`);
    expect((await getGuarantee(t, agency, guarantee.id)).headers['etag']).toBe('W/"1"');
  });

  test('then a write-only token listing is 403 naming the read scope (write does not imply read)', async () => {
    const writeOnly = await t.newAgency({ scopes: [WRITE] });
    const response = await listGuarantees(t, writeOnly);
    expectErrorBody(response, 403, 'insufficient_scope');
    expect(response.headers['www-authenticate']).toBe(`Bearer realm="rental-guarantee", error="insufficient_scope", scope="${READ}"`);
  });

  test('then a write-only token reading one guarantee is 403, though it may create it', async () => {
    const writeOnly = await t.newAgency({ scopes: [WRITE] });
    const guarantee = await postGuarantee(t, writeOnly, guaranteeBody());
    expect(guarantee.status).toBe(201);
    const response = await getGuarantee(t, writeOnly, guarantee.body.id);
    expectErrorBody(response, 403, 'insufficient_scope');
  });

  test('then a financial-only token can do nothing with guarantees', async () => {
    const financial = await t.newAgency({ scopes: ['ri:financial:read'] });
    expectErrorBody(await listGuarantees(t, financial), 403, 'insufficient_scope');
    expectErrorBody(await postGuarantee(t, financial, guaranteeBody()), 403, 'insufficient_scope');
  });
});

describe('When the request body cannot be read', () => {
  test('then malformed JSON on create is 400 malformed_json and nothing is created', async () => {
    const before = await countGuarantees(t, agency);
    const response = await request(t.app)
      .post(COLLECTION)
      .set(agency.auth)
      .set('Idempotency-Key', newKey())
      .set('Content-Type', 'application/json')
      .send('{"tenant": {"cpfCnpj": "52998224725",');
    expectErrorBody(response, 400, 'malformed_json');
    expect(await countGuarantees(t, agency)).toBe(before);
  });

  test('then malformed JSON on a merge patch is 400 malformed_json', async () => {
    const guarantee = await created(t, agency);
    const response = await patchGuarantee(t, agency, guarantee.id, "{ externalId: 'single quotes' }");
    expectErrorBody(response, 400, 'malformed_json');
  });

  test('then a body above 100 KB is 413 payload_too_large and nothing is created', async () => {
    const before = await countGuarantees(t, agency);
    const body = { ...guaranteeBody(), padding: 'x'.repeat(102_400) };
    const response = await postGuarantee(t, agency, body).set('X-Correlation-Id', 'too-big-1');
    expectErrorBody(response, 413, 'payload_too_large');
    expect(response.body.correlationId).toBe('too-big-1');
    expect(await countGuarantees(t, agency)).toBe(before);
  });

  test('then a body just under 100 KB is read (and refused for its unknown field, not its size)', async () => {
    const base = JSON.stringify({ ...guaranteeBody(), padding: '' });
    const body = { ...guaranteeBody(), padding: 'x'.repeat(102_400 - base.length - 200) };
    const response = await postGuarantee(t, agency, body);
    expectErrorBody(response, 400, 'validation_failed');
    expect(response.body.details).toContain('padding: unknown field');
  });

  test('then a create sent as text/plain is 415 unsupported_media_type', async () => {
    const response = await request(t.app)
      .post(COLLECTION)
      .set(agency.auth)
      .set('Idempotency-Key', newKey())
      .set('Content-Type', 'text/plain')
      .send(JSON.stringify(guaranteeBody()));
    expectErrorBody(response, 415, 'unsupported_media_type');
  });

  test('then a create with a merge-patch content type is 415 unsupported_media_type', async () => {
    const response = await request(t.app)
      .post(COLLECTION)
      .set(agency.auth)
      .set('Idempotency-Key', newKey())
      .set('Content-Type', 'application/merge-patch+json')
      .send(JSON.stringify(guaranteeBody()));
    expectErrorBody(response, 415, 'unsupported_media_type');
  });

  test('then a create without a body is 400 validation_failed', async () => {
    const response = await request(t.app).post(COLLECTION).set(agency.auth).set('Idempotency-Key', newKey());
    expectErrorBody(response, 400, 'validation_failed');
  });
});

describe('When the path or method is unknown', () => {
  test('then an unknown route under the API is 404 route_not_found', async () => {
    const response = await request(t.app).get(`${API}/v1/rental-insurance`).set(agency.auth).set('X-Correlation-Id', 'route-1');
    expectErrorBody(response, 404, 'route_not_found');
    expect(response.body.correlationId).toBe('route-1');
  });

  test('then an unknown sub-resource of a guarantee is 404 route_not_found', async () => {
    const guarantee = await created(t, agency);
    const response = await request(t.app).get(`${itemPath(guarantee.id)}/documents`).set(agency.auth);
    expectErrorBody(response, 404, 'route_not_found');
  });

  test('then a path outside the API is 404 route_not_found', async () => {
    const response = await request(t.app).get('/v1/rental-insurances').set(agency.auth);
    expectErrorBody(response, 404, 'route_not_found');
  });

  test('then PUT on the collection is 405 method_not_allowed with Allow: GET, POST', async () => {
    const response = await request(t.app).put(COLLECTION).set(agency.auth).set('X-Correlation-Id', 'method-1').send(guaranteeBody());
    expectErrorBody(response, 405, 'method_not_allowed');
    expect(response.headers['allow']!.split(/,\s*/).sort()).toEqual(['GET', 'POST']);
    expect(response.body.correlationId).toBe('method-1');
  });

  test('then DELETE on a guarantee is 405 with Allow: GET, PATCH', async () => {
    const guarantee = await created(t, agency);
    const response = await request(t.app).delete(itemPath(guarantee.id)).set(agency.auth).set('Idempotency-Key', newKey());
    expectErrorBody(response, 405, 'method_not_allowed');
    expect(response.headers['allow']!.split(/,\s*/).sort()).toEqual(['GET', 'PATCH']);
    expect(await countGuarantees(t, agency)).toBeGreaterThan(0);
  });
});

describe('When a partner sends X-Correlation-Id', () => {
  test('then a well-formed id is echoed on success responses too', async () => {
    const id = 'erp.batch_17:item-3';
    const createdResponse = await postGuarantee(t, agency, guaranteeBody()).set('X-Correlation-Id', id);
    expect(createdResponse.headers['x-correlation-id']).toBe(id);
    expect((await listGuarantees(t, agency).set('X-Correlation-Id', id)).headers['x-correlation-id']).toBe(id);
  });

  test('then an id of 128 characters is kept', async () => {
    const id = 'a'.repeat(128);
    const response = await getGuarantee(t, agency, 987654321, { 'X-Correlation-Id': id });
    expect(response.headers['x-correlation-id']).toBe(id);
    expect(response.body.correlationId).toBe(id);
  });

  test.each([
    ['spaces and symbols', 'not valid! #1'],
    ['129 characters', 'a'.repeat(129)],
    ['a slash', 'erp/batch'],
  ])('then an id with %s is not an error: a generated id replaces it in header and body', async (_label, sent) => {
    const response = await getGuarantee(t, agency, 987654321, { 'X-Correlation-Id': sent });
    expectErrorBody(response, 404, 'not_found');
    expect(response.headers['x-correlation-id']).not.toBe(sent);
    expect(response.headers['x-correlation-id']).toMatch(GENERATED_CORRELATION_ID);
    expect(response.body.correlationId).toBe(response.headers['x-correlation-id']);
  });

  test('then without the header each response gets its own generated id', async () => {
    const first = await getGuarantee(t, agency, 987654321);
    const second = await getGuarantee(t, agency, 987654321);
    expect(first.headers['x-correlation-id']).toMatch(GENERATED_CORRELATION_ID);
    expect(second.headers['x-correlation-id']).toMatch(GENERATED_CORRELATION_ID);
    expect(first.headers['x-correlation-id']).not.toBe(second.headers['x-correlation-id']);
  });

  test('then an invalid id on a 401 is replaced as well', async () => {
    const response = await request(t.app).get(COLLECTION).set('X-Correlation-Id', 'bad id');
    expectErrorBody(response, 401, 'unauthorized');
    expect(response.body.correlationId).toMatch(GENERATED_CORRELATION_ID);
  });
});
