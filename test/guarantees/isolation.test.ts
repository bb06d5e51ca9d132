/** Every guarantee belongs to the agency of the token: another agency can neither read, change nor list it. */
import type { Response } from 'supertest';
import { expectErrorBody } from '../support/error-body';
import { asPartner, type Guarantee } from '../support/partner-api';
import { setStatus } from '../support/stored-state';
import { useTestApp } from '../support/test-app';

const world = useTestApp({}, { agencies: [{ displayName: 'Agency A ERP' }, { displayName: 'Agency B ERP' }] });
const agencyA = () => world.agencies[0]!;
const agencyB = () => world.agencies[1]!;
const asA = asPartner(world, agencyA);
const asB = asPartner(world, agencyB);
let ofA: Guarantee;
let ofB: Guarantee;

beforeAll(async () => {
  ofA = await asA.newGuarantee({
    tenant: { cpfCnpj: '529.982.247-25', name: 'Maria José da Silva' },
    property: {
      externalId: 'IMV-SHARED-REF',
      type: 'apartment',
      address: { zipCode: '01310-100', street: 'Avenida Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP' },
    },
  });
  await setStatus(world, ofA.id, 'approved');
  ofB = await asB.newGuarantee({ tenant: { cpfCnpj: '111.444.777-35', name: 'Pedro Álvares' } });
});

/** The error body without the parts that differ per request. */
const comparable = (response: Response) => ({
  status: response.status,
  code: response.body.code,
  message: response.body.message,
  details: response.body.details,
});

describe("When agency B asks for agency A's guarantee", () => {
  test('then B gets 404 not_found, exactly as for an id that does not exist', async () => {
    const response = await asB.get(ofA.id);
    expectErrorBody(response, 404, 'not_found');
    expect(response.headers['etag']).toBeUndefined();
    expect(JSON.stringify(response.body)).not.toContain('Maria');
    const missing = await asB.get(987654321);
    expect(comparable(response)).toEqual({ ...comparable(missing), message: missing.body.message.replace('987654321', String(ofA.id)) });
  });

  test('then If-None-Match with the right ETag does not reveal it either (404, not 304)', async () => {
    const response = await asB.get(ofA.id).set({ 'If-None-Match': 'W/"1"' });
    expectErrorBody(response, 404, 'not_found');
  });

  test('then A itself still reads it', async () => {
    const response = await asA.get(ofA.id);
    expect(response.status).toBe(200);
    expect(response.body.creator.name).toBe('Agency A ERP');
  });
});

describe("When agency B patches agency A's guarantee", () => {
  test('then B gets 404 not_found with the current ETag, and nothing changes', async () => {
    const response = await asB.patch(ofA.id, { externalId: 'HIJACKED', rentalAmount: 1 }, { ifMatch: 'W/"1"' });
    expectErrorBody(response, 404, 'not_found');
    const row = await world.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(ofA.id) } });
    expect({ version: row.version, externalId: row.externalId, status: row.status, companyId: row.companyId }).toEqual({
      version: 1,
      externalId: ofA.externalId,
      status: 'approved',
      companyId: agencyA().companyId,
    });
  });

  test('then B gets 404 whatever If-Match it sends (a stale one does not reveal the version with 412)', async () => {
    const response = await asB.patch(ofA.id, { externalId: 'HIJACKED' }, { ifMatch: 'W/"99"' });
    expectErrorBody(response, 404, 'not_found');
    expect(response.headers['etag']).toBeUndefined();
  });

  test('then the 404 stores nothing under B’s key, which B can use for its own guarantee', async () => {
    const key = `b-key-${Date.now()}`;
    const refused = await asB.patch(ofA.id, { externalId: 'HIJACKED' }, { key });
    expect(refused.status).toBe(404);
    const own = await asB.patch(ofB.id, { externalId: 'B-OWN' }, { key });
    expect(own.status).toBe(200);
  });
});

describe("When agency B lists with agency A's values as filters", () => {
  const idsOf = (response: Response) => (response.body._embedded.rentalInsurances as Guarantee[]).map((item) => item.id);

  test('then without filters B sees only its own guarantees', async () => {
    const response = await asB.list([['pageSize', 200]]);
    expect(response.status).toBe(200);
    expect(idsOf(response)).not.toContain(ofA.id);
    expect(response.body.page.totalElements).toBe(await world.db.rentalInsurance.count({ where: { companyId: agencyB().companyId } }));
  });

  test.each<[string, Array<[string, string]>]>([
    ['propertyExternalId', [['propertyExternalId', 'IMV-SHARED-REF']]],
    ['tenantCpfCnpj formatted', [['tenantCpfCnpj', '529.982.247-25']]],
    ['tenantCpfCnpj unformatted', [['tenantCpfCnpj', '52998224725']]],
    ['tenantName', [['tenantName', 'maria jose']]],
    ['status', [['status', 'approved']]],
    [
      'every filter together',
      [
        ['propertyExternalId', 'IMV-SHARED-REF'],
        ['tenantCpfCnpj', '52998224725'],
        ['tenantName', 'Maria'],
        ['status', 'approved'],
      ],
    ],
  ])("then filtering on A's %s gives B an empty page with totalElements 0", async (_label, query) => {
    const response = await asB.list(query);
    expect(response.status).toBe(200);
    expect(response.body._embedded.rentalInsurances).toEqual([]);
    expect(response.body.page).toEqual({ size: 20, totalElements: 0, totalPages: 0, number: 0 });

    // The same filters find A's guarantee for A: the values are right, only the agency differs.
    const forA = await asA.list(query);
    expect(idsOf(forA)).toEqual([ofA.id]);
  });

  test("then B's own guarantee with the same tenant as A's is the only one B finds for that CPF", async () => {
    const sameTenantOfB = await asB.newGuarantee({ tenant: { cpfCnpj: '52998224725', name: 'Maria José da Silva' } });
    const response = await asB.list([['tenantCpfCnpj', '529.982.247-25']]);
    expect(idsOf(response)).toEqual([sameTenantOfB.id]);
    const forA = await asA.list([['tenantCpfCnpj', '529.982.247-25']]);
    expect(idsOf(forA)).toEqual([ofA.id]);
  });

  test('then a second credential of the same agency (same company) sees the agency’s guarantees', async () => {
    const secondOfA = await world.newAgency({ companyId: agencyA().companyId, displayName: 'Agency A BI' });
    const partner = asPartner(world, secondOfA);
    const response = await partner.list([['propertyExternalId', 'IMV-SHARED-REF']]);
    expect(idsOf(response)).toEqual([ofA.id]);
    expect((await partner.get(ofA.id)).status).toBe(200);
  });
});
