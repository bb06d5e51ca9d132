/** Every validation rule of the contract on POST: a valid and an invalid case per rule. */
import { expectDetailFor, expectErrorBody } from '../support/error-body';
import { cpf, guaranteeBody, saoPauloDay } from '../support/factories';
import { asPartner } from '../support/partner-api';
import { countGuarantees, countIdempotencyRecords } from '../support/stored-state';
import { useTestApp } from '../support/test-app';
import { baseBody, coTenant, getAt, REMOVE, setAt, text } from './body-paths';

const world = useTestApp({}, { agencies: 1 });
const partner = asPartner(world);

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
    const response = await partner.create(setAt(baseBody(), path, value));
    expect(response.status).toBe(201);
    expect(getAt(response.body, path)).toEqual(expected);
  });

  test('then 10 co-tenants are accepted and returned in the order sent', async () => {
    const coTenants = Array.from({ length: 10 }, (_, index) => coTenant(index));
    const response = await partner.create(guaranteeBody({ coTenants }));
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
    const before = { guarantees: await countGuarantees(world, world.agency), keys: await countIdempotencyRecords(world, world.agency) };
    const response = await partner.create(setAt(baseBody(), path, value));
    expectErrorBody(response, 400, 'validation_failed');
    expectDetailFor(response, detailPath ?? path);
    expect({ guarantees: await countGuarantees(world, world.agency), keys: await countIdempotencyRecords(world, world.agency) }).toEqual(before);
  });

  test('then an unknown field is named exactly as "<path>: unknown field"', async () => {
    const response = await partner.create(setAt(baseBody(), 'tenant.nickname', 'Mazé'));
    expectErrorBody(response, 400, 'validation_failed');
    expect(response.body.details).toContain('tenant.nickname: unknown field');
  });

  test('then a wrong check digit is named exactly as "tenant.cpfCnpj: invalid check digits"', async () => {
    const response = await partner.create(setAt(baseBody(), 'tenant.cpfCnpj', '529.982.247-24'));
    expect(response.body.details).toEqual(['tenant.cpfCnpj: invalid check digits']);
  });

  test('then the message of a co-tenant problem names its index', async () => {
    const body = baseBody();
    (body['coTenants'] as unknown[]).push({ cpfCnpj: cpf(555000111), name: 'Luiza', email: 'luiza at example' });
    const response = await partner.create(body);
    expectErrorBody(response, 400, 'validation_failed');
    expect(response.body.details).toEqual([expect.stringMatching(/^coTenants\[1\]\.email: /)]);
  });
});
