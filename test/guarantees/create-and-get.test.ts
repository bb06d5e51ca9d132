/** POST, GET, list and PATCH of a guarantee on the happy path: every field and header of the answers. */
import { guaranteeBody } from '../support/factories';
import { expectErrorBody } from '../support/error-body';
import { asPartner, RFC3339_MS } from '../support/partner-api';
import { countGuarantees, storedVersion } from '../support/stored-state';
import { useTestApp } from '../support/test-app';
import { completeRequest, CREATOR, expectedResponse } from './complete-guarantee';

const world = useTestApp({}, { agencies: [{ displayName: CREATOR }] });
const partner = asPartner(world);

const LOCATION = /^http:\/\/127\.0\.0\.1:\d+\/rental-guarantee\/v1\/rental-insurances\/(\d+)$/;

describe('When a partner creates a complete guarantee', () => {
  test('then it gets 201 with the whole normalised guarantee under review, version 1 and every write header', async () => {
    const before = Date.now();
    const response = await partner.create(completeRequest()).set('X-Correlation-Id', 'erp-create-1');
    const after = Date.now();

    expect(response.status).toBe(201);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['etag']).toBe('W/"1"');
    expect(response.headers['service-effects']).toBe('review_started');
    expect(response.headers['idempotent-replay']).toBe('false');
    expect(response.headers['x-correlation-id']).toBe('erp-create-1');
    expect(response.headers['location']).toMatch(LOCATION);
    expect(LOCATION.exec(response.headers['location']!)![1]).toBe(String(response.body.id));

    expect(response.body).toEqual(expectedResponse());
    expect(Object.keys(response.body)).toHaveLength(21);
    expect(response.body.id).toBeGreaterThan(0);
    expect(response.body.updatedAt).toBe(response.body.createdAt);
    const createdAt = new Date(response.body.createdAt).getTime();
    expect(createdAt).toBeGreaterThanOrEqual(before - 1000);
    expect(createdAt).toBeLessThanOrEqual(after + 1000);
  });

  test('then the stored row belongs to the token company, holds version 1 and exact decimals', async () => {
    const response = await partner.create(completeRequest());
    const row = await world.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(response.body.id) }, include: { coTenants: true } });
    expect(row.companyId).toBe(world.agency.companyId);
    expect(row.version).toBe(1);
    expect(row.status).toBe('under_review');
    expect(row.tenantCpfCnpj).toBe('52998224725');
    expect(row.addressZipCode).toBe('01310100');
    expect(row.propertyTax?.toFixed(2)).toBe('210.35');
    expect(row.coTenants.map((coTenant) => coTenant.cpfCnpj)).toEqual(['11144477735']);
  });

  test('then the Location header leads to the same guarantee', async () => {
    const response = await partner.create(completeRequest());
    const read = await partner.follow(response.headers['location']!);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(response.body);
  });

  test('then Content-Type application/json with a charset parameter is accepted', async () => {
    const response = await partner.create(completeRequest(), { contentType: 'application/json; charset=utf-8' });
    expect(response.status).toBe(201);
  });
});

describe('When a partner creates a guarantee with only the required fields', () => {
  test('then every optional field is present as null and coTenants is an empty array', async () => {
    const countBefore = await countGuarantees(world, world.agency);
    const response = await partner.create({
      tenant: { cpfCnpj: '11.222.333/0001-81', name: 'Padaria Bela Vista Ltda' },
      property: {
        externalId: 'LOJA-0042',
        type: 'commercial',
        address: {
          zipCode: '01414001',
          street: 'Rua Haddock Lobo',
          number: '595',
          neighborhood: 'Cerqueira César',
          city: 'São Paulo',
          state: 'SP',
        },
      },
      rentalAmount: 12000,
    });
    expect(response.status).toBe(201);
    expect(response.headers['etag']).toBe('W/"1"');
    expect(response.headers['service-effects']).toBe('review_started');
    expect(response.body).toEqual({
      id: expect.any(Number),
      externalId: null,
      status: 'under_review',
      creator: { name: CREATOR, serviceAccount: true },
      tenant: { cpfCnpj: '11222333000181', name: 'Padaria Bela Vista Ltda', email: null, birthDate: null, phoneNumber: null, profession: null },
      coTenants: [],
      property: {
        externalId: 'LOJA-0042',
        type: { code: 'commercial', description: 'Commercial' },
        address: {
          zipCode: '01414001',
          street: 'Rua Haddock Lobo',
          number: '595',
          complement: null,
          neighborhood: 'Cerqueira César',
          city: 'São Paulo',
          state: 'SP',
        },
      },
      rentalAmount: 12000,
      condoFee: null,
      propertyTax: null,
      otherFees: null,
      installmentAmount: null,
      setupFee: null,
      coverageLimit: null,
      rentCoverageLimit: null,
      remainingCoverageAmount: null,
      rentRemainingCoverageAmount: null,
      startBillingDate: null,
      terminationDate: null,
      createdAt: expect.stringMatching(RFC3339_MS),
      updatedAt: expect.stringMatching(RFC3339_MS),
    });
    expect(await countGuarantees(world, world.agency)).toBe(countBefore + 1);
  });

  test('then a house is returned with its label', async () => {
    const body = guaranteeBody();
    (body['property'] as Record<string, unknown>)['type'] = 'house';
    const response = await partner.create(body);
    expect(response.status).toBe(201);
    expect(response.body.property.type).toEqual({ code: 'house', description: 'House' });
  });
});

describe('When a partner reads a guarantee it created', () => {
  test('then it gets 200, the same body as the creation and ETag W/"1"', async () => {
    const createdResponse = await partner.create(completeRequest());
    const response = await partner.get(createdResponse.body.id).set({ 'X-Correlation-Id': 'erp-read-1' });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['etag']).toBe('W/"1"');
    expect(response.headers['x-correlation-id']).toBe('erp-read-1');
    expect(response.headers['service-effects']).toBeUndefined();
    expect(response.body).toEqual(createdResponse.body);
  });

  test('then an id that does not exist is 404 not_found', async () => {
    const response = await partner.get(987654321);
    expectErrorBody(response, 404, 'not_found');
    expect(response.headers['etag']).toBeUndefined();
  });

  test.each([['abc'], ['0'], ['-5'], ['1.5'], ['99999999999999999999']])('then the id %s, not a positive integer, is 404 not_found', async (id) => {
    const response = await partner.get(id);
    expectErrorBody(response, 404, 'not_found');
  });
});

describe('When a partner lists its guarantees after creating one', () => {
  test('then the listed item is exactly the guarantee as read', async () => {
    const own = await world.newAgency();
    const createdResponse = await asPartner(world, own).create(completeRequest());
    const response = await asPartner(world, own).list();
    expect(response.status).toBe(200);
    expect(response.headers['x-correlation-id']).toEqual(expect.any(String));
    expect(response.headers['etag']).toBeUndefined();
    expect(response.body._embedded.rentalInsurances).toEqual([
      { ...createdResponse.body, creator: { name: expect.any(String), serviceAccount: true } },
    ]);
    expect(response.body.page).toEqual({ size: 20, totalElements: 1, totalPages: 1, number: 0 });
  });
});

describe('When a partner patches a guarantee with the current ETag', () => {
  test('then it gets 200, the whole updated guarantee, ETag W/"2" and every write header', async () => {
    const createdResponse = await partner.create(completeRequest());
    const id = createdResponse.body.id as number;
    const response = await partner
      .patch(id, { tenant: { phoneNumber: '+55 11 99876-5432' }, propertyTax: null })
      .set('X-Correlation-Id', 'erp-patch-1');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['etag']).toBe('W/"2"');
    expect(response.headers['service-effects']).toBe('none');
    expect(response.headers['idempotent-replay']).toBe('false');
    expect(response.headers['x-correlation-id']).toBe('erp-patch-1');
    expect(response.headers['location']).toBeUndefined();
    expect(response.body).toEqual(
      expectedResponse({
        id,
        tenant: { ...expectedResponse().tenant, phoneNumber: '+5511998765432' },
        propertyTax: null,
        createdAt: createdResponse.body.createdAt,
      }),
    );
    expect(new Date(response.body.updatedAt).getTime()).toBeGreaterThanOrEqual(new Date(createdResponse.body.createdAt).getTime());
    expect(await storedVersion(world, id)).toBe(2);

    const read = await partner.get(id);
    expect(read.headers['etag']).toBe('W/"2"');
    expect(read.body).toEqual(response.body);
  });
});
