/** PATCH /v1/rental-insurances/{id}: JSON merge patch semantics (fields, nulls, media type, no-ops). */
import { expectDetailFor, expectErrorBody } from '../support/error-body';
import { asPartner, type Guarantee } from '../support/partner-api';
import { storedVersion } from '../support/stored-state';
import { useTestApp } from '../support/test-app';

const world = useTestApp({}, { agencies: 1 });
const partner = asPartner(world);

/** The body as read, without updatedAt (which moves with every change). */
function stable(body: Guarantee): Record<string, unknown> {
  const { updatedAt: _ignored, ...rest } = body;
  return rest;
}

async function patched(id: number, patch: unknown, ifMatch = 'W/"1"') {
  const response = await partner.patch(id, patch, { ifMatch });
  if (response.status !== 200) throw new Error(`patch failed: ${response.status} ${response.text}`);
  return response;
}

describe('When a partner patches some fields', () => {
  test('then only the fields present change; everything else keeps its value', async () => {
    const original = await partner.newGuarantee();
    const response = await patched(original.id, { tenant: { email: 'maria.nova@example.com' } });
    expect(response.headers['etag']).toBe('W/"2"');
    expect(stable(response.body)).toEqual({ ...stable(original), tenant: { ...original.tenant, email: 'maria.nova@example.com' } });
    expect(new Date(response.body.updatedAt).getTime()).toBeGreaterThanOrEqual(new Date(original.updatedAt!).getTime());
  });

  test('then nested tenant, property and address fields merge field by field', async () => {
    const original = await partner.newGuarantee();
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
    const original = await partner.newGuarantee();
    const response = await patched(original.id, { tenant: { phoneNumber: '+55 (21) 3456.7890' }, property: { address: { zipCode: '20040-020' } } });
    expect(response.body.tenant.phoneNumber).toBe('+552134567890');
    expect(response.body.property.address.zipCode).toBe('20040020');
  });

  test('then money changes are stored exactly', async () => {
    const original = await partner.newGuarantee();
    const response = await patched(original.id, { rentalAmount: 3700.1, condoFee: 880.9, otherFees: 0.07 });
    expect(response.body).toMatchObject({ rentalAmount: 3700.1, condoFee: 880.9, otherFees: 0.07, propertyTax: original['propertyTax'] });
    const row = await world.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(original.id) } });
    expect([row.rentalAmount.toFixed(2), row.condoFee?.toFixed(2), row.otherFees?.toFixed(2)]).toEqual(['3700.10', '880.90', '0.07']);
  });

  test('then a change of tenant name is found by the name filter under the new name only', async () => {
    const own = await world.newAgency();
    const original = await asPartner(world, own).newGuarantee({ tenant: { cpfCnpj: '52998224725', name: 'Fulano Antigo' } });
    const response = await asPartner(world, own).patch(original.id, { tenant: { name: 'Beltrana Conceição' } });
    expect(response.status).toBe(200);
    const list = (name: string) => asPartner(world, own).list({ tenantName: name });
    expect((await list('conceicao')).body.page.totalElements).toBe(1);
    expect((await list('antigo')).body.page.totalElements).toBe(0);
  });
});

describe('When a partner sends null in a merge patch', () => {
  test('then null clears optional fields: tenant email, phone, birthDate, profession, address complement, money and externalId', async () => {
    const original = await partner.newGuarantee();
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
    const row = await world.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(original.id) } });
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
    const original = await partner.newGuarantee();
    const response = await partner.patch(original.id, patch);
    expectErrorBody(response, 400, 'validation_failed');
    expectDetailFor(response, path);
    const read = await partner.get(original.id);
    expect(read.headers['etag']).toBe('W/"1"');
    expect(read.body).toEqual(original);
  });
});

describe('When a merge patch is sent with another Content-Type', () => {
  test.each([['application/json'], ['text/plain'], ['application/x-www-form-urlencoded']])(
    'then %s is 415 unsupported_media_type and nothing changes',
    async (contentType) => {
      const original = await partner.newGuarantee();
      const response = await partner.patch(original.id, { externalId: 'CHANGED' }, { contentType });
      expectErrorBody(response, 415, 'unsupported_media_type');
      expect(await storedVersion(world, original.id)).toBe(1);
      expect((await partner.get(original.id)).body.externalId).toBe(original.externalId);
    },
  );

  test('then application/merge-patch+json with a charset parameter is accepted', async () => {
    const original = await partner.newGuarantee();
    const response = await partner.patch(original.id, { externalId: 'CHANGED' }, { contentType: 'application/merge-patch+json; charset=utf-8' });
    expect(response.status).toBe(200);
    expect(response.body.externalId).toBe('CHANGED');
  });
});

describe('When a patch changes nothing', () => {
  test('then values equal to the current ones keep the version and report Service-Effects none', async () => {
    const original = await partner.newGuarantee();
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
    expect(await storedVersion(world, original.id)).toBe(1);
  });

  test('then an empty object is a valid no-op', async () => {
    const original = await partner.newGuarantee();
    const response = await patched(original.id, {});
    expect(response.headers['etag']).toBe('W/"1"');
    expect(response.headers['service-effects']).toBe('none');
    expect(response.body).toEqual(original);
  });

  test('then a patch with an empty body is a valid no-op too', async () => {
    const original = await partner.newGuarantee();
    const response = await partner.patch(original.id, '{}');
    expect(response.status).toBe(200);
    expect(response.headers['etag']).toBe('W/"1"');
  });
});
