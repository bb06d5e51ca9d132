/** Validation beyond one field: several broken rules at once, co-tenants repeating a CPF/CNPJ, and rules on PATCH. */
import { expectDetailFor, expectErrorBody } from '../support/error-body';
import { guaranteeBody, saoPauloDay } from '../support/factories';
import { asPartner } from '../support/partner-api';
import { countGuarantees, storedVersion } from '../support/stored-state';
import { useTestApp } from '../support/test-app';
import { baseBody, setAt, text } from './body-paths';

const world = useTestApp({}, { agencies: 1 });
const partner = asPartner(world);

describe('When a partner creates a guarantee breaking several rules at once', () => {
  test('then every schema problem is reported, one details entry each', async () => {
    const body = baseBody();
    setAt(body, 'property.address.state', 'XX');
    setAt(body, 'tenant.nickname', 'Mazé');
    setAt(body, 'rentalAmount', 0);
    setAt(body, 'coTenants[0].email', 'joao at example');
    const response = await partner.create(body);
    expectErrorBody(response, 400, 'validation_failed');
    for (const path of ['property.address.state', 'tenant.nickname', 'rentalAmount', 'coTenants[0].email']) expectDetailFor(response, path);
  });

  test('then every rule problem (check digits, phone, dates) is reported, one details entry each', async () => {
    const body = baseBody();
    setAt(body, 'tenant.cpfCnpj', '529.982.247-24');
    setAt(body, 'tenant.phoneNumber', '(20) 98765-4321');
    setAt(body, 'tenant.birthDate', saoPauloDay(1));
    setAt(body, 'coTenants[0].cpfCnpj', '11111111111');
    const response = await partner.create(body);
    expectErrorBody(response, 400, 'validation_failed');
    for (const path of ['tenant.cpfCnpj', 'tenant.phoneNumber', 'tenant.birthDate', 'coTenants[0].cpfCnpj']) expectDetailFor(response, path);
    expect(response.body.details).toHaveLength(4);
  });

  test('then schema problems and rule problems are reported together (as in the contract example)', async () => {
    const body = baseBody();
    setAt(body, 'tenant.cpfCnpj', '529.982.247-24');
    setAt(body, 'property.address.state', 'XX');
    setAt(body, 'tenant.nickname', 'Mazé');
    const response = await partner.create(body);
    expectErrorBody(response, 400, 'validation_failed');
    for (const path of ['tenant.cpfCnpj', 'property.address.state', 'tenant.nickname']) expectDetailFor(response, path);
  });
});

describe('When a co-tenant repeats a CPF/CNPJ of the guarantee', () => {
  test.each<[string, (tenantCpf: string) => unknown[]]>([
    ['the tenant’s CPF', (tenantCpf) => [{ cpfCnpj: tenantCpf, name: 'Same person' }]],
    [
      'the tenant’s CPF with punctuation',
      (tenantCpf) => [
        { cpfCnpj: `${tenantCpf.slice(0, 3)}.${tenantCpf.slice(3, 6)}.${tenantCpf.slice(6, 9)}-${tenantCpf.slice(9)}`, name: 'Same person' },
      ],
    ],
    [
      'another co-tenant’s CPF',
      () => [
        { cpfCnpj: '39053344705', name: 'Luiza' },
        { cpfCnpj: '390.533.447-05', name: 'Luiza again' },
      ],
    ],
  ])('then %s is 409 duplicate_co_tenant and nothing is created', async (_label, coTenants) => {
    const body = guaranteeBody();
    const tenantCpf = (body['tenant'] as { cpfCnpj: string }).cpfCnpj;
    body['coTenants'] = coTenants(tenantCpf);
    const before = await countGuarantees(world, world.agency);
    const response = await partner.create(body);
    expectErrorBody(response, 409, 'duplicate_co_tenant');
    expect(await countGuarantees(world, world.agency)).toBe(before);
  });

  test('then an alphanumeric CNPJ given in lower case still counts as the same company', async () => {
    const body = guaranteeBody();
    (body['tenant'] as Record<string, unknown>)['cpfCnpj'] = '12.ABC.345/01DE-35';
    body['coTenants'] = [{ cpfCnpj: '12abc34501de35', name: 'Same company' }];
    const response = await partner.create(body);
    expectErrorBody(response, 409, 'duplicate_co_tenant');
  });
});

describe('When a partner patches a guarantee breaking a rule', () => {
  let id: number;
  beforeAll(async () => {
    id = (await partner.newGuarantee()).id;
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
    const before = await partner.get(id);
    const response = await partner.patch(id, patch, { ifMatch: before.headers['etag'] });
    expectErrorBody(response, 400, 'validation_failed');
    expectDetailFor(response, path);
    expect(await storedVersion(world, id)).toBe(1);
    const after = await partner.get(id);
    expect(after.body).toEqual(before.body);
  });

  test('then the tenant cpfCnpj detail says it cannot be changed', async () => {
    const response = await partner.patch(id, { tenant: { cpfCnpj: '52998224725' } });
    expect(response.body.details).toEqual([expect.stringMatching(/^tenant\.cpfCnpj: /)]);
  });
});
