/** GET /v1/rental-insurances filtered by property, tenant CPF/CNPJ, tenant name and status, and links that keep the filters. */
import { cpf, withTenant } from '../support/factories';
import { asPartner } from '../support/partner-api';
import { setStatus } from '../support/stored-state';
import { useTestApp } from '../support/test-app';
import { ids, linkOf } from './list-links';

const world = useTestApp({}, { agencies: 1 });
const partner = asPartner(world);

describe('When a partner filters the list', () => {
  const tenantCpf = cpf(123456780);
  const otherCpf = cpf(223456780);
  let byId: Record<string, number>;

  beforeAll(async () => {
    const make = async (name: string, tenant: Record<string, unknown>, propertyExternalId: string) => {
      const base = withTenant(tenant);
      const body = await partner.newGuarantee({
        ...base,
        property: {
          externalId: propertyExternalId,
          type: 'apartment',
          address: { zipCode: '01310100', street: 'Rua A', number: '1', neighborhood: 'Centro', city: 'São Paulo', state: 'SP' },
        },
      });
      return [name, body.id] as const;
    };
    byId = Object.fromEntries([
      await make('jose', { name: 'José Carlos Silva', cpfCnpj: tenantCpf }, 'IMV-1'),
      await make('joseph', { name: 'Joseph Müller', cpfCnpj: otherCpf }, 'IMV-1'),
      await make('ana', { name: 'Ana Souza', cpfCnpj: tenantCpf }, 'IMV-2'),
      await make('percent', { name: 'Loja 50% Off Ltda', cpfCnpj: otherCpf }, 'imv-1'),
      await make('underscore', { name: 'Maria_Silva', cpfCnpj: otherCpf }, 'IMV-3'),
      await make('underscoreLike', { name: 'MariaXSilva', cpfCnpj: otherCpf }, 'IMV-3'),
      await make('cnpj', { name: 'Padaria Bela Vista', cpfCnpj: '12.ABC.345/01DE-35' }, 'IMV-4'),
    ]);
    await setStatus(world, byId['jose']!, 'approved');
    await setStatus(world, byId['joseph']!, 'accepted');
    await setStatus(world, byId['ana']!, 'declined');
  });

  const filtered = async (query: Array<[string, string]>) => {
    const response = await partner.list(query);
    expect(response.status).toBe(200);
    expect(response.body.page.totalElements).toBe(response.body._embedded.rentalInsurances.length);
    return ids(response).sort((a, b) => a - b);
  };
  const idsOf = (...names: string[]) => names.map((name) => byId[name]!).sort((a, b) => a - b);

  test('then propertyExternalId matches exactly (case-sensitive, no substring)', async () => {
    expect(await filtered([['propertyExternalId', 'IMV-1']])).toEqual(idsOf('jose', 'joseph'));
    expect(await filtered([['propertyExternalId', 'imv-1']])).toEqual(idsOf('percent'));
    expect(await filtered([['propertyExternalId', 'IMV']])).toEqual([]);
  });

  test('then tenantCpfCnpj matches the normalised number, formatted or not', async () => {
    const formatted = `${tenantCpf.slice(0, 3)}.${tenantCpf.slice(3, 6)}.${tenantCpf.slice(6, 9)}-${tenantCpf.slice(9)}`;
    expect(await filtered([['tenantCpfCnpj', tenantCpf]])).toEqual(idsOf('jose', 'ana'));
    expect(await filtered([['tenantCpfCnpj', formatted]])).toEqual(idsOf('jose', 'ana'));
  });

  test('then tenantCpfCnpj matches an alphanumeric CNPJ given formatted and in lower case', async () => {
    expect(await filtered([['tenantCpfCnpj', '12.abc.345/01de-35']])).toEqual(idsOf('cnpj'));
    expect(await filtered([['tenantCpfCnpj', '12ABC34501DE35']])).toEqual(idsOf('cnpj'));
  });

  test('then an unknown or invalid CPF just matches nothing', async () => {
    expect(await filtered([['tenantCpfCnpj', '52998224725']])).toEqual([]);
    expect(await filtered([['tenantCpfCnpj', `${tenantCpf.slice(0, 10)}${(Number(tenantCpf[10]) + 1) % 10}`]])).toEqual([]);
  });

  test.each([
    ['jose', ['jose', 'joseph']],
    ['José', ['jose', 'joseph']],
    ['JOSÉ CARLOS', ['jose']],
    ['SILVA', ['jose', 'underscore', 'underscoreLike']],
    ['silva', ['jose', 'underscore', 'underscoreLike']],
    ['muller', ['joseph']],
    ['MÜLLER', ['joseph']],
    ['carlos s', ['jose']],
  ])('then tenantName "%s" matches a case- and accent-insensitive substring', async (name, expected) => {
    expect(await filtered([['tenantName', name]])).toEqual(idsOf(...expected));
  });

  test('then % in tenantName is a literal character, not a wildcard', async () => {
    expect(await filtered([['tenantName', '%']])).toEqual(idsOf('percent'));
    expect(await filtered([['tenantName', '50%']])).toEqual(idsOf('percent'));
    expect(await filtered([['tenantName', 'jo%silva']])).toEqual([]);
  });

  test('then _ in tenantName is a literal character, not a wildcard', async () => {
    expect(await filtered([['tenantName', 'maria_silva']])).toEqual(idsOf('underscore'));
  });

  test('then a single status selects that status only', async () => {
    expect(await filtered([['status', 'approved']])).toEqual(idsOf('jose'));
    expect(await filtered([['status', 'under_review']])).toEqual(idsOf('percent', 'underscore', 'underscoreLike', 'cnpj'));
  });

  test('then repeated status values combine with OR', async () => {
    expect(
      await filtered([
        ['status', 'approved'],
        ['status', 'declined'],
      ]),
    ).toEqual(idsOf('jose', 'ana'));
    expect(
      await filtered([
        ['status', 'approved'],
        ['status', 'accepted'],
        ['status', 'declined'],
      ]),
    ).toEqual(idsOf('jose', 'joseph', 'ana'));
    expect(
      await filtered([
        ['status', 'terminated'],
        ['status', 'archived'],
      ]),
    ).toEqual([]);
  });

  test('then different filters combine with AND', async () => {
    expect(
      await filtered([
        ['tenantName', 'jose'],
        ['propertyExternalId', 'IMV-1'],
      ]),
    ).toEqual(idsOf('jose', 'joseph'));
    expect(
      await filtered([
        ['tenantName', 'jose'],
        ['status', 'accepted'],
      ]),
    ).toEqual(idsOf('joseph'));
    expect(
      await filtered([
        ['tenantCpfCnpj', tenantCpf],
        ['status', 'declined'],
      ]),
    ).toEqual(idsOf('ana'));
    expect(
      await filtered([
        ['tenantCpfCnpj', tenantCpf],
        ['propertyExternalId', 'IMV-1'],
        ['tenantName', 'silva'],
        ['status', 'approved'],
      ]),
    ).toEqual(idsOf('jose'));
    expect(
      await filtered([
        ['tenantCpfCnpj', tenantCpf],
        ['propertyExternalId', 'IMV-3'],
      ]),
    ).toEqual([]);
    expect(
      await filtered([
        ['tenantName', 'ana'],
        ['status', 'approved'],
      ]),
    ).toEqual([]);
  });

  test('then the links keep every filter, repeated statuses included, and the applied page size', async () => {
    const response = await partner.list([
      ['tenantName', 'jo%sé'],
      ['propertyExternalId', 'IMV-1'],
      ['tenantCpfCnpj', '123.456.789-09'],
      ['status', 'approved'],
      ['status', 'accepted'],
      ['pageSize', 999],
      ['page', 3],
    ]);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body._links).sort()).toEqual(['first', 'last', 'prev', 'self']);
    for (const name of Object.keys(response.body._links)) {
      const params = linkOf(response, name)!.searchParams;
      expect(params.get('tenantName')).toBe('jo%sé');
      expect(params.get('propertyExternalId')).toBe('IMV-1');
      expect(params.get('tenantCpfCnpj')).toBe('123.456.789-09');
      expect(params.getAll('status')).toEqual(['approved', 'accepted']);
      // 999 clamped to the specification's maximum page size, 200.
      expect(params.get('pageSize')).toBe('200');
    }
    expect(linkOf(response, 'self')!.searchParams.get('page')).toBe('3');
    // The same parameters as values, typed as the operation takes them, for clients that call operations.
    expect(response.body._links.prev.query).toEqual({
      tenantName: 'jo%sé',
      propertyExternalId: 'IMV-1',
      tenantCpfCnpj: '123.456.789-09',
      status: ['approved', 'accepted'],
      page: 0, // prev of a page beyond the last is the last page, 0 here
      pageSize: 200,
    });
  });

  test('then a single status in a link query is still a list, as the parameter is declared', async () => {
    const response = await partner.list([['status', 'approved']]);
    expect(response.body._links.self.query).toEqual({ status: ['approved'], page: 0, pageSize: 20 });
  });

  test('then following a filtered next link keeps filtering', async () => {
    const first = await partner.list([
      ['propertyExternalId', 'IMV-1'],
      ['pageSize', 1],
    ]);
    expect(first.body.page).toEqual({ size: 1, totalElements: 2, totalPages: 2, number: 0 });
    const next = linkOf(first, 'next')!;
    const second = await partner.list([...next.searchParams.entries()]);
    expect(second.body.page).toEqual({ size: 1, totalElements: 2, totalPages: 2, number: 1 });
    expect([...ids(first), ...ids(second)].sort((a, b) => a - b)).toEqual(idsOf('jose', 'joseph'));
  });
});
