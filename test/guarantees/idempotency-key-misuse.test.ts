/** Idempotency-Key misuse and failures: reuse for another request, missing or malformed keys, failed writes, agency scope. */
import { guaranteeBody, newKey } from '../support/factories';
import { expectErrorBody } from '../support/error-body';
import { asPartner } from '../support/partner-api';
import { countGuarantees, countIdempotencyRecords } from '../support/stored-state';
import { useTestApp } from '../support/test-app';

const world = useTestApp({}, { agencies: 1 });
const partner = asPartner(world);

describe('When a partner reuses a key for a different request', () => {
  test('then a different body is 400 idempotency_key_reused and nothing is created', async () => {
    const key = newKey();
    const first = await partner.create(guaranteeBody(), { key });
    expect(first.status).toBe(201);
    const countBefore = await countGuarantees(world, world.agency);
    const reused = await partner.create(guaranteeBody({ rentalAmount: 3600 }), { key });
    expectErrorBody(reused, 400, 'idempotency_key_reused');
    expect(reused.headers['idempotent-replay']).toBeUndefined();
    expect(await countGuarantees(world, world.agency)).toBe(countBefore);
  });

  test('then a different path or method (the create key on a patch) is 400 idempotency_key_reused and nothing changes', async () => {
    const key = newKey();
    const first = await partner.create(guaranteeBody(), { key });
    const reused = await partner.patch(first.body.id, { externalId: 'NEW' }, { key });
    expectErrorBody(reused, 400, 'idempotency_key_reused');
    expect((await partner.get(first.body.id)).headers['etag']).toBe('W/"1"');
  });

  test('then the same patch body on another guarantee is a different request (400 idempotency_key_reused)', async () => {
    const key = newKey();
    const a = await partner.newGuarantee();
    const b = await partner.newGuarantee();
    await partner.patch(a.id, { externalId: 'SAME' }, { key }).expect(200);
    const reused = await partner.patch(b.id, { externalId: 'SAME' }, { key });
    expectErrorBody(reused, 400, 'idempotency_key_reused');
    expect((await partner.get(b.id)).body.externalId).toBe(b.externalId);
  });
});

describe('When the Idempotency-Key header is missing or malformed', () => {
  test('then a create without the key is 400 idempotency_key_required and nothing is created', async () => {
    const countBefore = await countGuarantees(world, world.agency);
    const response = await partner.create(guaranteeBody(), { key: null });
    expectErrorBody(response, 400, 'idempotency_key_required');
    expect(await countGuarantees(world, world.agency)).toBe(countBefore);
  });

  test('then a patch without the key is 400 idempotency_key_required', async () => {
    const guarantee = await partner.newGuarantee();
    const response = await partner.patch(guarantee.id, { externalId: 'X' }, { key: null, ifMatch: 'W/"1"' });
    expectErrorBody(response, 400, 'idempotency_key_required');
  });

  test.each([
    ['256 characters', 'k'.repeat(256)],
    ['a non-ASCII character', 'chave-é-única'],
    ['a space inside', 'two words'],
    ['a quoted empty string', '""'],
    ['a control character', 'tab\there'],
    ['a quoted key of 256 characters', `"${'k'.repeat(256)}"`],
  ])('then a key with %s is 400 idempotency_key_invalid and nothing is created', async (_label, key) => {
    const countBefore = await countGuarantees(world, world.agency);
    const response = await partner.create(guaranteeBody(), { key });
    expectErrorBody(response, 400, 'idempotency_key_invalid');
    expect(await countGuarantees(world, world.agency)).toBe(countBefore);
  });

  test('then a key of exactly 255 visible ASCII characters is accepted', async () => {
    const key = `${'!~'.repeat(127)}z`;
    expect(key).toHaveLength(255);
    const response = await partner.create(guaranteeBody(), { key });
    expect(response.status).toBe(201);
  });

  test('then a key of 1 character is accepted', async () => {
    const other = await world.newAgency();
    const response = await asPartner(world, other).create(guaranteeBody(), { key: 'x' });
    expect(response.status).toBe(201);
  });
});

describe('When a write with a key fails', () => {
  test('then a validation error stores nothing and the same key then succeeds with a valid body', async () => {
    const key = newKey();
    const recordsBefore = await countIdempotencyRecords(world, world.agency);
    const invalid = await partner.create(guaranteeBody({ rentalAmount: 0 }), { key });
    expectErrorBody(invalid, 400, 'validation_failed');
    expect(await countIdempotencyRecords(world, world.agency)).toBe(recordsBefore);
    expect(await world.db.idempotencyRecord.findUnique({ where: { companyId_key: { companyId: world.agency.companyId, key } } })).toBeNull();

    const valid = await partner.create(guaranteeBody(), { key });
    expect(valid.status).toBe(201);
    expect(valid.headers['idempotent-replay']).toBe('false');
  });

  test('then a rule error (bad check digits) stores nothing either', async () => {
    const key = newKey();
    const body = guaranteeBody();
    (body['tenant'] as Record<string, unknown>)['cpfCnpj'] = '529.982.247-24';
    expectErrorBody(await partner.create(body, { key }), 400, 'validation_failed');
    const valid = await partner.create(guaranteeBody(), { key });
    expect(valid.status).toBe(201);
  });

  test('then a conflict (duplicate co-tenant) stores nothing and creates nothing', async () => {
    const key = newKey();
    const body = guaranteeBody();
    body['coTenants'] = [{ cpfCnpj: (body['tenant'] as { cpfCnpj: string }).cpfCnpj, name: 'Same' }];
    const countBefore = await countGuarantees(world, world.agency);
    expectErrorBody(await partner.create(body, { key }), 409, 'duplicate_co_tenant');
    expect(await countGuarantees(world, world.agency)).toBe(countBefore);
    expect((await partner.create(guaranteeBody(), { key })).status).toBe(201);
  });

  test('then a failed patch (stale If-Match) stores nothing and the same key works with the current ETag', async () => {
    const guarantee = await partner.newGuarantee();
    await partner.patch(guarantee.id, { externalId: 'V2' }).expect(200);
    const key = newKey();
    const stale = await partner.patch(guarantee.id, { externalId: 'V3' }, { key, ifMatch: 'W/"1"' });
    expect(stale.status).toBe(412);
    const retried = await partner.patch(guarantee.id, { externalId: 'V3' }, { key, ifMatch: 'W/"2"' });
    expect(retried.status).toBe(200);
    expect(retried.headers['idempotent-replay']).toBe('false');
    expect(retried.headers['etag']).toBe('W/"3"');
  });
});

describe('When two agencies use the same key', () => {
  test('then keys are scoped per agency: each agency creates its own guarantee', async () => {
    const a = await world.newAgency();
    const b = await world.newAgency();
    const key = `shared-${newKey()}`;
    const body = guaranteeBody();
    const fromA = await asPartner(world, a).create(body, { key });
    const fromB = await asPartner(world, b).create(body, { key });
    expect([fromA.status, fromB.status]).toEqual([201, 201]);
    expect(fromB.headers['idempotent-replay']).toBe('false');
    expect(fromB.body.id).not.toBe(fromA.body.id);
    expect(fromB.body.creator.name).not.toBe(fromA.body.creator.name);
    expect([await countGuarantees(world, a), await countGuarantees(world, b)]).toEqual([1, 1]);

    // And a different body under B's use of the key does not collide with A's record.
    const fromC = await world.newAgency();
    const different = await asPartner(world, fromC).create(guaranteeBody({ rentalAmount: 999 }), { key });
    expect(different.status).toBe(201);
  });
});
