/** Every validation rule of the contract, through POST (and PATCH): a valid and an invalid case per rule. */
import { cpf, guaranteeBody } from '../support/factories';
import { expectErrorBody } from '../support/error-body';
import { startTestApp, type Agency, type TestApp } from '../support/test-app';
import {
  countGuarantees,
  countIdempotencyRecords,
  created,
  expectDetailFor,
  getGuarantee,
  patchGuarantee,
  postGuarantee,
  saoPauloDay,
  storedVersion,
} from './guarantee-http';

let t: TestApp;
let agency: Agency;
beforeAll(async () => {
  t = await startTestApp();
  agency = await t.newAgency();
});
afterAll(() => t.close());

const REMOVE = Symbol('remove');

/** `path` like `tenant.cpfCnpj` or `coTenants[0].email`, as the error details name fields. */
function segmentsOf(path: string): Array<string | number> {
  return path.split('.').flatMap((part) => {
    const match = /^([^[]+)((?:\[\d+\])*)$/.exec(part)!;
    const indexes = [...match[2]!.matchAll(/\[(\d+)\]/g)].map((index) => Number(index[1]));
    return [match[1]!, ...indexes];
  });
}

function setAt(body: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const segments = segmentsOf(path);
  let node = body as Record<string | number, unknown>;
  for (const segment of segments.slice(0, -1)) node = node[segment] as Record<string | number, unknown>;
  const last = segments[segments.length - 1]!;
  if (value === REMOVE) delete node[last];
  else node[last] = value;
  return body;
}

function getAt(body: unknown, path: string): unknown {
  return segmentsOf(path).reduce<unknown>((node, segment) => (node as Record<string | number, unknown>)[segment], body);
}

/** A valid body with one co-tenant, so that co-tenant paths exist. */
function baseBody(): Record<string, unknown> {
  return guaranteeBody({
    coTenants: [{ cpfCnpj: cpf(987654321), name: 'João Pereira', email: 'joao@example.com', birthDate: '1986-09-30', phoneNumber: '11912345678' }],
  });
}

const coTenant = (index: number) => ({ cpfCnpj: cpf(300000000 + index * 17), name: `Co-tenant ${index}` });
const text = (length: number) => 'x'.repeat(length);

describe('When a partner creates a guarantee with a valid value for a rule', () => {
  test.each<[string, string, unknown, unknown]>([
    ['formatted CPF', 'tenant.cpfCnpj', '529.982.247-25', '52998224725'],
    ['unformatted CPF', 'tenant.cpfCnpj', '52998224725', '52998224725'],
    ['CPF whose first check digit is 0', 'tenant.cpfCnpj', '111.444.777-35', '11144477735'],
    ['formatted numeric CNPJ', 'tenant.cpfCnpj', '11.222.333/0001-81', '11222333000181'],
    ['alphanumeric CNPJ', 'tenant.cpfCnpj', '12.ABC.345/01DE-35', '12ABC34501DE35'],
    ['alphanumeric CNPJ in lower case', 'tenant.cpfCnpj', '12abc34501de35', '12ABC34501DE35'],
    ['co-tenant formatted CPF', 'coTenants[0].cpfCnpj', '390.533.447-05', '39053344705'],
    ['CEP with hyphen', 'property.address.zipCode', '01310-100', '01310100'],
    ['CEP without hyphen', 'property.address.zipCode', '20040020', '20040020'],
    ['UF RJ', 'property.address.state', 'RJ', 'RJ'],
    ['UF TO', 'property.address.state', 'TO', 'TO'],
    ['phone with DDD in parentheses', 'tenant.phoneNumber', '(11) 98765-4321', '+5511987654321'],
    ['phone with +55 and spaces', 'tenant.phoneNumber', '+55 11 98765-4321', '+5511987654321'],
    ['phone with 55 and no +', 'tenant.phoneNumber', '5511987654321', '+5511987654321'],
    ['phone digits only', 'tenant.phoneNumber', '11987654321', '+5511987654321'],
    ['landline with hyphen', 'tenant.phoneNumber', '11 3456-7890', '+551134567890'],
    ['landline with dots and +55', 'tenant.phoneNumber', '+55 (21) 2345.6789', '+552123456789'],
    ['already E.164', 'tenant.phoneNumber', '+5511987654321', '+5511987654321'],
    ['co-tenant phone', 'coTenants[0].phoneNumber', '(21) 99876-5432', '+5521998765432'],
    ['email with plus and subdomain', 'tenant.email', 'maria.silva+garantia@mail.example.com.br', 'maria.silva+garantia@mail.example.com.br'],
    ['birthDate yesterday', 'tenant.birthDate', saoPauloDay(-1), saoPauloDay(-1)],
    ['birthDate 1900-01-01', 'tenant.birthDate', '1900-01-01', '1900-01-01'],
    ['birthDate on 29 February of a leap year', 'coTenants[0].birthDate', '2000-02-29', '2000-02-29'],
    ['rentalAmount with 2 decimals', 'rentalAmount', 3500.99, 3500.99],
    ['rentalAmount 0.01', 'rentalAmount', 0.01, 0.01],
    ['rentalAmount at the maximum', 'rentalAmount', 999999999.99, 999999999.99],
    ['condoFee 0', 'condoFee', 0, 0],
    ['propertyTax 0.3', 'propertyTax', 0.3, 0.3],
    ['otherFees with 1 decimal', 'otherFees', 12.5, 12.5],
    ['name of 200 characters', 'tenant.name', text(200), text(200)],
    ['profession of 100 characters', 'tenant.profession', text(100), text(100)],
    ['street of 200 characters', 'property.address.street', text(200), text(200)],
    ['number of 20 characters', 'property.address.number', text(20), text(20)],
    ['complement of 100 characters', 'property.address.complement', text(100), text(100)],
    ['externalId of 100 characters', 'externalId', text(100), text(100)],
    ['property externalId of 100 characters', 'property.externalId', text(100), text(100)],
    ['explicit null on optional email', 'tenant.email', null, null],
    ['explicit null on optional complement', 'property.address.complement', null, null],
  ])('then %s is accepted (%s) and returned normalised', async (_label, path, value, expected) => {
    const response = await postGuarantee(t, agency, setAt(baseBody(), path, value));
    expect(response.status).toBe(201);
    expect(getAt(response.body, path)).toEqual(expected);
  });

  test('then 10 co-tenants are accepted and returned in the order sent', async () => {
    const coTenants = Array.from({ length: 10 }, (_, index) => coTenant(index));
    const response = await postGuarantee(t, agency, guaranteeBody({ coTenants }));
    expect(response.status).toBe(201);
    expect(response.body.coTenants.map((item: { cpfCnpj: string }) => item.cpfCnpj)).toEqual(coTenants.map((item) => item.cpfCnpj));
  });
});

type InvalidCase = [label: string, path: string, value: unknown, detailPath?: string];

describe('When a partner creates a guarantee breaking one rule', () => {
  test.each<InvalidCase>([
    // CPF / CNPJ
    ['CPF with a wrong check digit, formatted', 'tenant.cpfCnpj', '529.982.247-24'],
    ['CPF with a wrong check digit, unformatted', 'tenant.cpfCnpj', '52998224735'],
    ['CPF of one repeated digit', 'tenant.cpfCnpj', '111.111.111-11'],
    ['CPF of zeros', 'tenant.cpfCnpj', '00000000000'],
    ['CPF with a letter', 'tenant.cpfCnpj', '5299822472A'],
    ['CPF/CNPJ of 12 characters', 'tenant.cpfCnpj', '529982247250'],
    ['CPF/CNPJ too short for the schema', 'tenant.cpfCnpj', '5299822'],
    ['CPF with spaces', 'tenant.cpfCnpj', '529 982 247 25'],
    ['numeric CNPJ with wrong check digits', 'tenant.cpfCnpj', '11.222.333/0001-82'],
    ['alphanumeric CNPJ with wrong check digits', 'tenant.cpfCnpj', '12ABC34501DE36'],
    ['alphanumeric CNPJ with letter check digits', 'tenant.cpfCnpj', '12ABC34501DEAB'],
    ['co-tenant CPF with a wrong check digit', 'coTenants[0].cpfCnpj', '390.533.447-06'],
    // CEP and UF
    ['CEP with 7 digits', 'property.address.zipCode', '0131010'],
    ['CEP with 9 digits', 'property.address.zipCode', '013101000'],
    ['CEP with letters', 'property.address.zipCode', 'ABCDE-FGH'],
    ['CEP with a dot', 'property.address.zipCode', '01.310-100'],
    ['unknown UF', 'property.address.state', 'XX'],
    ['UF in lower case', 'property.address.state', 'sp'],
    ['UF spelt out', 'property.address.state', 'São Paulo'],
    // phone
    ['phone with an unassigned DDD', 'tenant.phoneNumber', '(20) 98765-4321'],
    ['old 8-digit mobile', 'tenant.phoneNumber', '(11) 8765-4321'],
    ['landline starting with 1', 'tenant.phoneNumber', '11 1456-7890'],
    ['foreign number', 'tenant.phoneNumber', '+1 212 555 0100'],
    ['phone with letters', 'tenant.phoneNumber', '11 9876A-4321'],
    ['phone too short', 'tenant.phoneNumber', '987654321'],
    ['phone longer than 20 characters', 'tenant.phoneNumber', '+55 (11) 9 8765 - 4321'],
    ['co-tenant phone with an unassigned DDD', 'coTenants[0].phoneNumber', '23 2345-6789'],
    // email
    ['email without @', 'tenant.email', 'maria.example.com'],
    ['email without domain', 'tenant.email', 'maria@'],
    ['email longer than 254 characters', 'tenant.email', `${text(64)}@${text(186)}.com.br`],
    ['co-tenant email', 'coTenants[0].email', 'joao at example'],
    // birthDate
    ['birthDate in the future', 'tenant.birthDate', saoPauloDay(30)],
    ['birthDate tomorrow', 'tenant.birthDate', saoPauloDay(1)],
    ['birthDate today', 'tenant.birthDate', saoPauloDay(0)],
    ['birthDate before 1900', 'tenant.birthDate', '1899-12-31'],
    ['birthDate that does not exist', 'tenant.birthDate', '2023-02-29'],
    ['birthDate in Brazilian format', 'tenant.birthDate', '12/04/1988'],
    ['co-tenant birthDate today', 'coTenants[0].birthDate', saoPauloDay(0)],
    // money
    ['rentalAmount with 3 decimals', 'rentalAmount', 3500.555],
    ['condoFee with 3 decimals', 'condoFee', 850.001],
    ['setupFee with 3 decimals', 'setupFee', 0.005],
    ['propertyTax computed as 0.1 + 0.2 (0.30000000000000004)', 'propertyTax', 0.1 + 0.2],
    ['rentalAmount at the maximum plus a third decimal', 'rentalAmount', 999999999.999],
    ['negative condoFee', 'condoFee', -1],
    ['negative propertyTax', 'propertyTax', -0.01],
    ['negative rentalAmount', 'rentalAmount', -3500],
    ['rentalAmount 0', 'rentalAmount', 0],
    ['rentalAmount above the maximum', 'rentalAmount', 1000000000],
    ['rentalAmount as a string', 'rentalAmount', '3500'],
    ['condoFee as a string', 'condoFee', '850.00'],
    ['otherFees as a boolean', 'otherFees', true],
    ['rentalAmount null', 'rentalAmount', null],
    // lengths and empty text
    ['tenant name of 201 characters', 'tenant.name', text(201)],
    ['empty tenant name', 'tenant.name', ''],
    ['profession of 101 characters', 'tenant.profession', text(101)],
    ['street of 201 characters', 'property.address.street', text(201)],
    ['empty street', 'property.address.street', ''],
    ['number of 21 characters', 'property.address.number', text(21)],
    ['complement of 101 characters', 'property.address.complement', text(101)],
    ['neighborhood of 101 characters', 'property.address.neighborhood', text(101)],
    ['city of 101 characters', 'property.address.city', text(101)],
    ['externalId of 101 characters', 'externalId', text(101)],
    ['property externalId of 101 characters', 'property.externalId', text(101)],
    ['co-tenant name of 201 characters', 'coTenants[0].name', text(201)],
    // types and enumerations
    ['property type outside the enumeration', 'property.type', 'castle'],
    ['tenant name as a number', 'tenant.name', 42],
    ['tenant as a string', 'tenant', 'Maria'],
    ['tenant name null', 'tenant.name', null],
    ['coTenants as an object', 'coTenants', { cpfCnpj: '39053344705', name: 'Luiza' }],
    // missing required fields
    ['missing tenant', 'tenant', REMOVE],
    ['missing tenant.cpfCnpj', 'tenant.cpfCnpj', REMOVE],
    ['missing tenant.name', 'tenant.name', REMOVE],
    ['missing property', 'property', REMOVE],
    ['missing property.externalId', 'property.externalId', REMOVE],
    ['missing property.type', 'property.type', REMOVE],
    ['missing property.address', 'property.address', REMOVE],
    ['missing zipCode', 'property.address.zipCode', REMOVE],
    ['missing street', 'property.address.street', REMOVE],
    ['missing number', 'property.address.number', REMOVE],
    ['missing neighborhood', 'property.address.neighborhood', REMOVE],
    ['missing city', 'property.address.city', REMOVE],
    ['missing state', 'property.address.state', REMOVE],
    ['missing rentalAmount', 'rentalAmount', REMOVE],
    ['missing co-tenant name', 'coTenants[0].name', REMOVE],
    ['missing co-tenant cpfCnpj', 'coTenants[0].cpfCnpj', REMOVE],
    // unknown fields
    ['unknown tenant field', 'tenant.nickname', 'Mazé'],
    ['unknown top-level field', 'companyId', 'agency-2'],
    ['unknown top-level status (partners never set it)', 'status', 'approved'],
    ['unknown address field', 'property.address.country', 'BR'],
    ['profession on a co-tenant', 'coTenants[0].profession', 'Advogado'],
    ['more than 10 co-tenants', 'coTenants', Array.from({ length: 11 }, (_, index) => coTenant(index)), 'coTenants'],
    // A rest parameter keeps the callback's arity 0: Jest would otherwise pass `done` for the missing 4th value.
  ])('then %s is 400 validation_failed naming %s, and nothing is created', async (...[, path, value, detailPath]: InvalidCase) => {
    const before = { guarantees: await countGuarantees(t, agency), keys: await countIdempotencyRecords(t, agency) };
    const response = await postGuarantee(t, agency, setAt(baseBody(), path, value));
    expectErrorBody(response, 400, 'validation_failed');
    expectDetailFor(response, detailPath ?? path);
    expect({ guarantees: await countGuarantees(t, agency), keys: await countIdempotencyRecords(t, agency) }).toEqual(before);
  });

  test('then an unknown field is named exactly as "<path>: unknown field"', async () => {
    const response = await postGuarantee(t, agency, setAt(baseBody(), 'tenant.nickname', 'Mazé'));
    expectErrorBody(response, 400, 'validation_failed');
    expect(response.body.details).toContain('tenant.nickname: unknown field');
  });

  test('then a wrong check digit is named exactly as "tenant.cpfCnpj: invalid check digits"', async () => {
    const response = await postGuarantee(t, agency, setAt(baseBody(), 'tenant.cpfCnpj', '529.982.247-24'));
    expect(response.body.details).toEqual(['tenant.cpfCnpj: invalid check digits']);
  });

  test('then the message of a co-tenant problem names its index', async () => {
    const body = baseBody();
    (body['coTenants'] as unknown[]).push({ cpfCnpj: cpf(555000111), name: 'Luiza', email: 'luiza at example' });
    const response = await postGuarantee(t, agency, body);
    expectErrorBody(response, 400, 'validation_failed');
    expect(response.body.details).toEqual([expect.stringMatching(/^coTenants\[1\]\.email: /)]);
  });
});

describe('When a partner creates a guarantee breaking several rules at once', () => {
  test('then every schema problem is reported, one details entry each', async () => {
    const body = baseBody();
    setAt(body, 'property.address.state', 'XX');
    setAt(body, 'tenant.nickname', 'Mazé');
    setAt(body, 'rentalAmount', 0);
    setAt(body, 'coTenants[0].email', 'joao at example');
    const response = await postGuarantee(t, agency, body);
    expectErrorBody(response, 400, 'validation_failed');
    for (const path of ['property.address.state', 'tenant.nickname', 'rentalAmount', 'coTenants[0].email']) expectDetailFor(response, path);
  });

  test('then every rule problem (check digits, phone, dates) is reported, one details entry each', async () => {
    const body = baseBody();
    setAt(body, 'tenant.cpfCnpj', '529.982.247-24');
    setAt(body, 'tenant.phoneNumber', '(20) 98765-4321');
    setAt(body, 'tenant.birthDate', saoPauloDay(1));
    setAt(body, 'coTenants[0].cpfCnpj', '11111111111');
    const response = await postGuarantee(t, agency, body);
    expectErrorBody(response, 400, 'validation_failed');
    for (const path of ['tenant.cpfCnpj', 'tenant.phoneNumber', 'tenant.birthDate', 'coTenants[0].cpfCnpj']) expectDetailFor(response, path);
    expect(response.body.details).toHaveLength(4);
  });

  test('then schema problems and rule problems are reported together (as in the contract example)', async () => {
    const body = baseBody();
    setAt(body, 'tenant.cpfCnpj', '529.982.247-24');
    setAt(body, 'property.address.state', 'XX');
    setAt(body, 'tenant.nickname', 'Mazé');
    const response = await postGuarantee(t, agency, body);
    expectErrorBody(response, 400, 'validation_failed');
    for (const path of ['tenant.cpfCnpj', 'property.address.state', 'tenant.nickname']) expectDetailFor(response, path);
  });
});

describe('When a co-tenant repeats a CPF/CNPJ of the guarantee', () => {
  test.each<[string, (tenantCpf: string) => unknown[]]>([
    ['the tenant’s CPF', (tenantCpf) => [{ cpfCnpj: tenantCpf, name: 'Same person' }]],
    ['the tenant’s CPF with punctuation', (tenantCpf) => [{ cpfCnpj: `${tenantCpf.slice(0, 3)}.${tenantCpf.slice(3, 6)}.${tenantCpf.slice(6, 9)}-${tenantCpf.slice(9)}`, name: 'Same person' }]],
    ['another co-tenant’s CPF', () => [{ cpfCnpj: '39053344705', name: 'Luiza' }, { cpfCnpj: '390.533.447-05', name: 'Luiza again' }]],
  ])('then %s is 409 duplicate_co_tenant and nothing is created', async (_label, coTenants) => {
    const body = guaranteeBody();
    const tenantCpf = (body['tenant'] as { cpfCnpj: string }).cpfCnpj;
    body['coTenants'] = coTenants(tenantCpf);
    const before = await countGuarantees(t, agency);
    const response = await postGuarantee(t, agency, body);
    expectErrorBody(response, 409, 'duplicate_co_tenant');
    expect(await countGuarantees(t, agency)).toBe(before);
  });

  test('then an alphanumeric CNPJ given in lower case still counts as the same company', async () => {
    const body = guaranteeBody();
    (body['tenant'] as Record<string, unknown>)['cpfCnpj'] = '12.ABC.345/01DE-35';
    body['coTenants'] = [{ cpfCnpj: '12abc34501de35', name: 'Same company' }];
    const response = await postGuarantee(t, agency, body);
    expectErrorBody(response, 409, 'duplicate_co_tenant');
  });
});

describe('When a partner patches a guarantee breaking a rule', () => {
  let id: number;
  beforeAll(async () => {
    id = (await created(t, agency)).id;
  });

  test.each<[string, unknown, string]>([
    ['the tenant cpfCnpj (it cannot be changed)', { tenant: { cpfCnpj: '52998224725' } }, 'tenant.cpfCnpj'],
    ['co-tenants (only through their endpoints)', { coTenants: [] }, 'coTenants'],
    ['an unknown tenant field', { tenant: { nickname: 'Mazé' } }, 'tenant.nickname'],
    ['a phone of an unassigned DDD', { tenant: { phoneNumber: '(20) 98765-4321' } }, 'tenant.phoneNumber'],
    ['an invalid email', { tenant: { email: 'maria@' } }, 'tenant.email'],
    ['a birthDate today', { tenant: { birthDate: saoPauloDay(0) } }, 'tenant.birthDate'],
    ['a CEP of 7 digits', { property: { address: { zipCode: '0131010' } } }, 'property.address.zipCode'],
    ['an unknown UF', { property: { address: { state: 'XX' } } }, 'property.address.state'],
    ['money with 3 decimals', { condoFee: 10.555 }, 'condoFee'],
    ['negative money', { otherFees: -5 }, 'otherFees'],
    ['rentalAmount 0', { rentalAmount: 0 }, 'rentalAmount'],
    ['rentalAmount as a string', { rentalAmount: '3600' }, 'rentalAmount'],
    ['a name of 201 characters', { tenant: { name: text(201) } }, 'tenant.name'],
    ['an empty street', { property: { address: { street: '' } } }, 'property.address.street'],
    ['a property type outside the enumeration', { property: { type: 'castle' } }, 'property.type'],
    ['the status (partners never set it)', { status: 'approved' }, 'status'],
  ])('then %s is 400 validation_failed naming the field, and nothing changes', async (_label, patch, path) => {
    const before = await getGuarantee(t, agency, id);
    const response = await patchGuarantee(t, agency, id, patch, { ifMatch: before.headers['etag'] });
    expectErrorBody(response, 400, 'validation_failed');
    expectDetailFor(response, path);
    expect(await storedVersion(t, id)).toBe(1);
    const after = await getGuarantee(t, agency, id);
    expect(after.body).toEqual(before.body);
  });

  test('then the tenant cpfCnpj detail says it cannot be changed', async () => {
    const response = await patchGuarantee(t, agency, id, { tenant: { cpfCnpj: '52998224725' } });
    expect(response.body.details).toEqual([expect.stringMatching(/^tenant\.cpfCnpj: /)]);
  });
});
