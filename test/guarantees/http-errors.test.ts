/** Authentication, scopes, body parsing, routing and correlation ids of the guarantee endpoints. */
import { guaranteeBody, newKey } from '../support/factories';
import { expectErrorBody } from '../support/error-body';
import { ANONYMOUS, API, COLLECTION, GENERATED_CORRELATION_ID, itemPath, asPartner, withAuthorization } from '../support/partner-api';
import { countGuarantees } from '../support/stored-state';
import { useTestApp } from '../support/test-app';

const world = useTestApp({}, { agencies: 1 });
const partner = asPartner(world);
const anonymous = asPartner(world, ANONYMOUS);

const READ = 'ri:rental-insurances:read';
const WRITE = 'ri:rental-insurances:write';

describe('When a request carries no valid token', () => {
  test('then a list without Authorization is 401 unauthorized with a Bearer challenge without error attribute', async () => {
    const response = await anonymous.list().set('X-Correlation-Id', 'no-token-1');
    expectErrorBody(response, 401, 'unauthorized');
    expect(response.headers['www-authenticate']).toBe('Bearer realm="rental-guarantee"');
    expect(response.headers['x-correlation-id']).toBe('no-token-1');
    expect(response.body.correlationId).toBe('no-token-1');
  });

  test('then a create without Authorization is 401 and nothing is created', async () => {
    const before = await countGuarantees(world);
    const response = await anonymous.create(guaranteeBody());
    expectErrorBody(response, 401, 'unauthorized');
    expect(await countGuarantees(world)).toBe(before);
  });

  test.each([
    ['an unknown token', 'Bearer sbx_at_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['a malformed header', 'Token abc'],
    ['a production token in the sandbox', 'Bearer prd_at_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
  ])('then %s is 401 unauthorized with error="invalid_token"', async (_label, authorization) => {
    const guarantee = await partner.newGuarantee();
    const response = await asPartner(world, withAuthorization(authorization)).get(guarantee.id);
    expectErrorBody(response, 401, 'unauthorized');
    expect(response.headers['www-authenticate']).toBe('Bearer realm="rental-guarantee", error="invalid_token"');
  });

  test('then a patch without token is 401 even without If-Match and Idempotency-Key', async () => {
    const guarantee = await partner.newGuarantee();
    const response = await anonymous.patch(guarantee.id, { externalId: 'X' }, { ifMatch: null, key: null });
    expectErrorBody(response, 401, 'unauthorized');
  });
});

describe('When a token lacks the scope of the operation', () => {
  test('then a read-only token creating is 403 insufficient_scope naming the write scope, and nothing is created', async () => {
    const readOnly = await world.newAgency({ scopes: [READ] });
    const response = await asPartner(world, readOnly).create(guaranteeBody()).set('X-Correlation-Id', 'scope-1');
    expectErrorBody(response, 403, 'insufficient_scope');
    expect(response.headers['www-authenticate']).toBe(`Bearer realm="rental-guarantee", error="insufficient_scope", scope="${WRITE}"`);
    expect(response.body.correlationId).toBe('scope-1');
    expect(await countGuarantees(world, readOnly)).toBe(0);
  });

  test('then a read-only token patching is 403 and nothing changes', async () => {
    const readOnly = await world.newAgency({ scopes: [READ], companyId: world.agency.companyId });
    const guarantee = await partner.newGuarantee();
    const response = await asPartner(world, readOnly).patch(guarantee.id, { externalId: 'X' });
    expectErrorBody(response, 403, 'insufficient_scope');
    expect(response.headers['www-authenticate']).toContain(`scope="${WRITE}"`);
    expect((await partner.get(guarantee.id)).headers['etag']).toBe('W/"1"');
  });

  test('then a write-only token listing is 403 naming the read scope (write does not imply read)', async () => {
    const writeOnly = await world.newAgency({ scopes: [WRITE] });
    const response = await asPartner(world, writeOnly).list();
    expectErrorBody(response, 403, 'insufficient_scope');
    expect(response.headers['www-authenticate']).toBe(`Bearer realm="rental-guarantee", error="insufficient_scope", scope="${READ}"`);
  });

  test('then a write-only token reading one guarantee is 403, though it may create it', async () => {
    const writeOnly = await world.newAgency({ scopes: [WRITE] });
    const guarantee = await asPartner(world, writeOnly).create(guaranteeBody());
    expect(guarantee.status).toBe(201);
    const response = await asPartner(world, writeOnly).get(guarantee.body.id);
    expectErrorBody(response, 403, 'insufficient_scope');
  });

  test('then a financial-only token can do nothing with guarantees', async () => {
    const financial = await world.newAgency({ scopes: ['ri:financial:read'] });
    expectErrorBody(await asPartner(world, financial).list(), 403, 'insufficient_scope');
    expectErrorBody(await asPartner(world, financial).create(guaranteeBody()), 403, 'insufficient_scope');
  });
});

describe('When the request body cannot be read', () => {
  test('then malformed JSON on create is 400 malformed_json and nothing is created', async () => {
    const before = await countGuarantees(world, world.agency);
    const response = await partner.create('{"tenant": {"cpfCnpj": "52998224725",');
    expectErrorBody(response, 400, 'malformed_json');
    expect(await countGuarantees(world, world.agency)).toBe(before);
  });

  test('then malformed JSON on a merge patch is 400 malformed_json', async () => {
    const guarantee = await partner.newGuarantee();
    const response = await partner.patch(guarantee.id, "{ externalId: 'single quotes' }");
    expectErrorBody(response, 400, 'malformed_json');
  });

  test('then a body above 100 KB is 413 payload_too_large and nothing is created', async () => {
    const before = await countGuarantees(world, world.agency);
    const body = { ...guaranteeBody(), padding: 'x'.repeat(102_400) };
    const response = await partner.create(body).set('X-Correlation-Id', 'too-big-1');
    expectErrorBody(response, 413, 'payload_too_large');
    expect(response.body.correlationId).toBe('too-big-1');
    expect(await countGuarantees(world, world.agency)).toBe(before);
  });

  test('then a body just under 100 KB is read (and refused for its unknown field, not its size)', async () => {
    const base = JSON.stringify({ ...guaranteeBody(), padding: '' });
    const body = { ...guaranteeBody(), padding: 'x'.repeat(102_400 - base.length - 200) };
    const response = await partner.create(body);
    expectErrorBody(response, 400, 'validation_failed');
    expect(response.body.details).toContain('padding: unknown field');
  });

  test('then a create sent as text/plain is 415 unsupported_media_type', async () => {
    const response = await partner.create(guaranteeBody(), { contentType: 'text/plain' });
    expectErrorBody(response, 415, 'unsupported_media_type');
  });

  test('then a create with a merge-patch content type is 415 unsupported_media_type', async () => {
    const response = await partner.create(guaranteeBody(), { contentType: 'application/merge-patch+json' });
    expectErrorBody(response, 415, 'unsupported_media_type');
  });

  test('then a create without a body is 400 validation_failed', async () => {
    const response = await partner.create(undefined);
    expectErrorBody(response, 400, 'validation_failed');
  });
});

describe('When the path or method is unknown', () => {
  test('then an unknown route under the API is 404 route_not_found', async () => {
    const response = await partner.request('get', `${API}/v1/rental-insurance`).set('X-Correlation-Id', 'route-1');
    expectErrorBody(response, 404, 'route_not_found');
    expect(response.body.correlationId).toBe('route-1');
  });

  test('then an unknown sub-resource of a guarantee is 404 route_not_found', async () => {
    const guarantee = await partner.newGuarantee();
    const response = await partner.request('get', `${itemPath(guarantee.id)}/attachments`);
    expectErrorBody(response, 404, 'route_not_found');
  });

  test('then a path outside the API is 404 route_not_found', async () => {
    const response = await partner.request('get', '/v1/rental-insurances');
    expectErrorBody(response, 404, 'route_not_found');
  });

  test.each([
    ['a guarantee id that is not a number', `${COLLECTION}/abc`, 'Rental insurance not found.'],
    ['a guarantee id not in canonical form', `${COLLECTION}/042`, 'Rental insurance not found.'],
    ['a malformed webhook endpoint id', `${API}/v1/webhook-endpoints/abc`, 'Webhook endpoint not found.'],
    ['a webhook endpoint id not in canonical form', `${API}/v1/webhook-endpoints/07`, 'Webhook endpoint not found.'],
  ])('then %s is 404 not_found naming that resource', async (_label, path, message) => {
    const response = await partner.request('get', path);
    expectErrorBody(response, 404, 'not_found');
    expect(response.body.message).toBe(message);
  });

  test('then PUT on the collection is 405 method_not_allowed with Allow: GET, HEAD, POST', async () => {
    const response = await partner.request('put', COLLECTION).set('X-Correlation-Id', 'method-1').send(guaranteeBody());
    expectErrorBody(response, 405, 'method_not_allowed');
    expect(response.headers['allow']!.split(/,\s*/).sort()).toEqual(['GET', 'HEAD', 'POST']);
    expect(response.body.correlationId).toBe('method-1');
  });

  test('then DELETE on a guarantee is 405 with Allow: GET, HEAD, PATCH', async () => {
    const guarantee = await partner.newGuarantee();
    const response = await partner.request('delete', itemPath(guarantee.id)).set('Idempotency-Key', newKey());
    expectErrorBody(response, 405, 'method_not_allowed');
    expect(response.headers['allow']!.split(/,\s*/).sort()).toEqual(['GET', 'HEAD', 'PATCH']);
    expect(await countGuarantees(world, world.agency)).toBeGreaterThan(0);
  });
});

describe('When a partner sends X-Correlation-Id', () => {
  test('then a well-formed id is echoed on success responses too', async () => {
    const id = 'erp.batch_17:item-3';
    const createdResponse = await partner.create(guaranteeBody()).set('X-Correlation-Id', id);
    expect(createdResponse.headers['x-correlation-id']).toBe(id);
    expect((await partner.list().set('X-Correlation-Id', id)).headers['x-correlation-id']).toBe(id);
  });

  test('then an id of 128 characters is kept', async () => {
    const id = 'a'.repeat(128);
    const response = await partner.get(987654321).set({ 'X-Correlation-Id': id });
    expect(response.headers['x-correlation-id']).toBe(id);
    expect(response.body.correlationId).toBe(id);
  });

  test.each([
    ['spaces and symbols', 'not valid! #1'],
    ['129 characters', 'a'.repeat(129)],
    ['a slash', 'erp/batch'],
  ])('then an id with %s is not an error: a generated id replaces it in header and body', async (_label, sent) => {
    const response = await partner.get(987654321).set({ 'X-Correlation-Id': sent });
    expectErrorBody(response, 404, 'not_found');
    expect(response.headers['x-correlation-id']).not.toBe(sent);
    expect(response.headers['x-correlation-id']).toMatch(GENERATED_CORRELATION_ID);
    expect(response.body.correlationId).toBe(response.headers['x-correlation-id']);
  });

  test('then without the header each response gets its own generated id', async () => {
    const first = await partner.get(987654321);
    const second = await partner.get(987654321);
    expect(first.headers['x-correlation-id']).toMatch(GENERATED_CORRELATION_ID);
    expect(second.headers['x-correlation-id']).toMatch(GENERATED_CORRELATION_ID);
    expect(first.headers['x-correlation-id']).not.toBe(second.headers['x-correlation-id']);
  });

  test('then an invalid id on a 401 is replaced as well', async () => {
    const response = await anonymous.list().set('X-Correlation-Id', 'bad id');
    expectErrorBody(response, 401, 'unauthorized');
    expect(response.body.correlationId).toMatch(GENERATED_CORRELATION_ID);
  });
});
