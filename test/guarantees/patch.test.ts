/** PATCH /v1/rental-insurances/{id}: JSON merge patch semantics, versions and effects by status. */
import request from 'supertest';
import { newKey } from '../support/factories';
import { expectErrorBody } from '../support/error-body';
import { startTestApp, type Agency, type TestApp } from '../support/test-app';
import type { Status } from '../../src/guarantees/status-machine';
import { created, expectDetailFor, getGuarantee, itemPath, patchGuarantee, setStatus, storedVersion, type GuaranteeJson } from './guarantee-http';

let t: TestApp;
let agency: Agency;
beforeAll(async () => {
  t = await startTestApp();
  agency = await t.newAgency();
});
afterAll(() => t.close());

/** The body as read, without updatedAt (which moves with every change). */
function stable(body: GuaranteeJson): Record<string, unknown> {
  const { updatedAt: _ignored, ...rest } = body;
  return rest;
}

async function patched(id: number, patch: unknown, ifMatch = 'W/"1"') {
  const response = await patchGuarantee(t, agency, id, patch, { ifMatch });
  if (response.status !== 200) throw new Error(`patch failed: ${response.status} ${response.text}`);
  return response;
}

describe('When a partner patches some fields', () => {
  test('then only the fields present change; everything else keeps its value', async () => {
    const original = await created(t, agency);
    const response = await patched(original.id, { tenant: { email: 'maria.nova@example.com' } });
    expect(response.headers['etag']).toBe('W/"2"');
    expect(stable(response.body)).toEqual({ ...stable(original), tenant: { ...original.tenant, email: 'maria.nova@example.com' } });
    expect(new Date(response.body.updatedAt).getTime()).toBeGreaterThanOrEqual(new Date(original.updatedAt).getTime());
  });

  test('then nested tenant, property and address fields merge field by field', async () => {
    const original = await created(t, agency);
    const response = await patched(original.id, {
      tenant: { profession: 'Arquiteta', birthDate: '1990-01-31' },
      property: { type: 'house', address: { number: '1580', zipCode: '04538-132', state: 'RJ' } },
    });
    expect(stable(response.body)).toEqual({
      ...stable(original),
      tenant: { ...original.tenant, profession: 'Arquiteta', birthDate: '1990-01-31' },
      property: {
        ...original.property,
        type: { code: 'house', description: 'House' },
        address: { ...original.property.address, number: '1580', zipCode: '04538132', state: 'RJ' },
      },
    });
  });

  test('then values are normalised as on creation (phone to E.164, CEP to 8 digits)', async () => {
    const original = await created(t, agency);
    const response = await patched(original.id, { tenant: { phoneNumber: '+55 (21) 3456.7890' }, property: { address: { zipCode: '20040-020' } } });
    expect(response.body.tenant.phoneNumber).toBe('+552134567890');
    expect(response.body.property.address.zipCode).toBe('20040020');
  });

  test('then money changes are stored exactly', async () => {
    const original = await created(t, agency);
    const response = await patched(original.id, { rentalAmount: 3700.1, condoFee: 880.9, otherFees: 0.07 });
    expect(response.body).toMatchObject({ rentalAmount: 3700.1, condoFee: 880.9, otherFees: 0.07, propertyTax: original['propertyTax'] });
    const row = await t.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(original.id) } });
    expect([row.rentalAmount.toFixed(2), row.condoFee?.toFixed(2), row.otherFees?.toFixed(2)]).toEqual(['3700.10', '880.90', '0.07']);
  });

  test('then a change of tenant name is found by the name filter under the new name only', async () => {
    const own = await t.newAgency();
    const original = await created(t, own, { tenant: { cpfCnpj: '52998224725', name: 'Fulano Antigo' } });
    const response = await patchGuarantee(t, own, original.id, { tenant: { name: 'Beltrana Conceição' } });
    expect(response.status).toBe(200);
    const list = (name: string) =>
      request(t.app).get(`/rental-guarantee/v1/rental-insurances?tenantName=${encodeURIComponent(name)}`).set(own.auth);
    expect((await list('conceicao')).body.page.totalElements).toBe(1);
    expect((await list('antigo')).body.page.totalElements).toBe(0);
  });
});

describe('When a partner sends null in a merge patch', () => {
  test('then null clears optional fields: tenant email, phone, birthDate, profession, address complement, money and externalId', async () => {
    const original = await created(t, agency);
    const response = await patched(original.id, {
      externalId: null,
      tenant: { email: null, phoneNumber: null, birthDate: null, profession: null },
      property: { address: { complement: null } },
      condoFee: null,
      propertyTax: null,
      setupFee: null,
    });
    expect(stable(response.body)).toEqual({
      ...stable(original),
      externalId: null,
      tenant: { ...original.tenant, email: null, phoneNumber: null, birthDate: null, profession: null },
      property: { ...original.property, address: { ...original.property.address, complement: null } },
      condoFee: null,
      propertyTax: null,
      setupFee: null,
    });
    const row = await t.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(original.id) } });
    expect([row.tenantEmail, row.addressComplement, row.condoFee, row.externalId]).toEqual([null, null, null, null]);
  });

  test.each<[string, unknown, string]>([
    ['tenant.name', { tenant: { name: null } }, 'tenant.name'],
    ['rentalAmount', { rentalAmount: null }, 'rentalAmount'],
    ['tenant', { tenant: null }, 'tenant'],
    ['property', { property: null }, 'property'],
    ['property.externalId', { property: { externalId: null } }, 'property.externalId'],
    ['property.type', { property: { type: null } }, 'property.type'],
    ['property.address', { property: { address: null } }, 'property.address'],
    ['property.address.street', { property: { address: { street: null } } }, 'property.address.street'],
    ['property.address.zipCode', { property: { address: { zipCode: null } } }, 'property.address.zipCode'],
  ])('then null on the required field %s is 400 validation_failed and nothing changes', async (_label, patch, path) => {
    const original = await created(t, agency);
    const response = await patchGuarantee(t, agency, original.id, patch);
    expectErrorBody(response, 400, 'validation_failed');
    expectDetailFor(response, path);
    const read = await getGuarantee(t, agency, original.id);
    expect(read.headers['etag']).toBe('W/"1"');
    expect(read.body).toEqual(original);
  });
});

describe('When a merge patch is sent with another Content-Type', () => {
  test.each([['application/json'], ['text/plain'], ['application/x-www-form-urlencoded']])(
    'then %s is 415 unsupported_media_type and nothing changes',
    async (contentType) => {
      const original = await created(t, agency);
      const response = await patchGuarantee(t, agency, original.id, { externalId: 'CHANGED' }, { contentType });
      expectErrorBody(response, 415, 'unsupported_media_type');
      expect(await storedVersion(t, original.id)).toBe(1);
      expect((await getGuarantee(t, agency, original.id)).body.externalId).toBe(original.externalId);
    },
  );

  test('then application/merge-patch+json with a charset parameter is accepted', async () => {
    const original = await created(t, agency);
    const response = await patchGuarantee(t, agency, original.id, { externalId: 'CHANGED' }, { contentType: 'application/merge-patch+json; charset=utf-8' });
    expect(response.status).toBe(200);
    expect(response.body.externalId).toBe('CHANGED');
  });
});

describe('When a patch changes nothing', () => {
  test('then values equal to the current ones keep the version and report Service-Effects none', async () => {
    const original = await created(t, agency);
    const response = await patched(original.id, {
      externalId: original.externalId,
      tenant: { name: original.tenant.name, phoneNumber: '(11) 98765-4321', birthDate: original.tenant['birthDate'] },
      property: { address: { zipCode: '01310-100', state: 'SP' } },
      rentalAmount: 3500,
      propertyTax: 210.35,
      otherFees: null,
    });
    expect(response.headers['etag']).toBe('W/"1"');
    expect(response.headers['service-effects']).toBe('none');
    expect(response.headers['idempotent-replay']).toBe('false');
    expect(response.body).toEqual(original);
    expect(await storedVersion(t, original.id)).toBe(1);
  });

  test('then an empty object is a valid no-op', async () => {
    const original = await created(t, agency);
    const response = await patched(original.id, {});
    expect(response.headers['etag']).toBe('W/"1"');
    expect(response.headers['service-effects']).toBe('none');
    expect(response.body).toEqual(original);
  });

  test('then a patch with an empty body is a valid no-op too', async () => {
    const original = await created(t, agency);
    const response = await request(t.app)
      .patch(itemPath(original.id))
      .set(agency.auth)
      .set('Idempotency-Key', newKey())
      .set('If-Match', 'W/"1"')
      .set('Content-Type', 'application/merge-patch+json')
      .send('{}');
    expect(response.status).toBe(200);
    expect(response.headers['etag']).toBe('W/"1"');
  });
});

describe('When a patch reaches a guarantee in each status', () => {
  async function inStatus(status: Status) {
    const guarantee = await created(t, agency);
    await setStatus(t, guarantee.id, status);
    return guarantee;
  }

  test('then a monetary change on approved starts a new review: under_review, review_started, version + 1', async () => {
    const guarantee = await inStatus('approved');
    const response = await patched(guarantee.id, { rentalAmount: 3700 });
    expect(response.body.status).toBe('under_review');
    expect(response.headers['service-effects']).toBe('review_started');
    expect(response.headers['etag']).toBe('W/"2"');
    expect((await t.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(guarantee.id) } })).status).toBe('under_review');
  });

  test.each([['condoFee', 900], ['propertyTax', null], ['otherFees', 10], ['setupFee', 0]])(
    'then a change of %s on approved is monetary too (review_started)',
    async (field, value) => {
      const guarantee = await inStatus('approved');
      const response = await patched(guarantee.id, { [field]: value });
      expect(response.body.status).toBe('under_review');
      expect(response.headers['service-effects']).toBe('review_started');
    },
  );

  test('then an externalId-only change on approved keeps the status and reports none', async () => {
    const guarantee = await inStatus('approved');
    const response = await patched(guarantee.id, { externalId: 'CTR-NEW-REF' });
    expect(response.body.status).toBe('approved');
    expect(response.body.externalId).toBe('CTR-NEW-REF');
    expect(response.headers['service-effects']).toBe('none');
    expect(response.headers['etag']).toBe('W/"2"');
  });

  test('then a non-monetary data change on approved keeps the status and reports none', async () => {
    const guarantee = await inStatus('approved');
    const response = await patched(guarantee.id, { tenant: { email: 'new@example.com' } });
    expect(response.body.status).toBe('approved');
    expect(response.headers['service-effects']).toBe('none');
  });

  test('then a monetary change under review keeps under_review and reports none', async () => {
    const guarantee = await created(t, agency);
    const response = await patched(guarantee.id, { rentalAmount: 4000 });
    expect(response.body.status).toBe('under_review');
    expect(response.headers['service-effects']).toBe('none');
    expect(response.headers['etag']).toBe('W/"2"');
  });

  test('then a monetary change on active keeps active and reports none', async () => {
    const guarantee = await inStatus('active');
    const response = await patched(guarantee.id, { rentalAmount: 3900 });
    expect(response.body.status).toBe('active');
    expect(response.body.rentalAmount).toBe(3900);
    expect(response.headers['service-effects']).toBe('none');
    expect(response.headers['etag']).toBe('W/"2"');
  });

  test('then a data change on information_requested returns it to review (review_started)', async () => {
    const guarantee = await inStatus('information_requested');
    const response = await patched(guarantee.id, { tenant: { profession: 'Médica' } });
    expect(response.body.status).toBe('under_review');
    expect(response.headers['service-effects']).toBe('review_started');
  });

  test('then an externalId-only change on information_requested keeps the status (none)', async () => {
    const guarantee = await inStatus('information_requested');
    const response = await patched(guarantee.id, { externalId: 'REF-2' });
    expect(response.body.status).toBe('information_requested');
    expect(response.headers['service-effects']).toBe('none');
  });

  test('then a monetary change on accepted reports review_started and contract_invalidated', async () => {
    const guarantee = await inStatus('accepted');
    const response = await patched(guarantee.id, { condoFee: 999 });
    expect(response.body.status).toBe('under_review');
    expect(new Set(response.headers['service-effects']!.split(/,\s*/))).toEqual(new Set(['review_started', 'contract_invalidated']));
  });

  test('then a contractual change on accepted keeps accepted and reports contract_reissued', async () => {
    const guarantee = await inStatus('accepted');
    const response = await patched(guarantee.id, { property: { address: { complement: 'Apto 84' } } });
    expect(response.body.status).toBe('accepted');
    expect(response.headers['service-effects']).toBe('contract_reissued');
  });

  test('then an externalId-only change on accepted reports none', async () => {
    const guarantee = await inStatus('accepted');
    const response = await patched(guarantee.id, { externalId: 'REF-3' });
    expect(response.body.status).toBe('accepted');
    expect(response.headers['service-effects']).toBe('none');
  });

  test.each<[Status]>([['declined'], ['expired'], ['declined_by_tenant'], ['terminated'], ['archived']])(
    'then any patch on the closed status %s is 409 invalid_state and nothing changes',
    async (status) => {
      const guarantee = await inStatus(status);
      const response = await patchGuarantee(t, agency, guarantee.id, { externalId: 'TOO-LATE', rentalAmount: 1 });
      expectErrorBody(response, 409, 'invalid_state');
      const row = await t.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(guarantee.id) } });
      expect({ status: row.status, version: row.version, externalId: row.externalId }).toEqual({ status, version: 1, externalId: guarantee.externalId });
    },
  );

  test('then even an empty patch on a closed status is 409 invalid_state', async () => {
    const guarantee = await inStatus('declined');
    const response = await patchGuarantee(t, agency, guarantee.id, {});
    expectErrorBody(response, 409, 'invalid_state');
  });
});

describe('When a partner patches a guarantee that is not there', () => {
  test('then an unknown id is 404 not_found', async () => {
    const response = await patchGuarantee(t, agency, 987654321, { externalId: 'X' });
    expectErrorBody(response, 404, 'not_found');
  });

  test('then an id that is not a positive integer is 404 not_found', async () => {
    const response = await patchGuarantee(t, agency, 'abc', { externalId: 'X' });
    expectErrorBody(response, 404, 'not_found');
  });
});
