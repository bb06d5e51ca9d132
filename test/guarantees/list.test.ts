/** GET /v1/rental-insurances: paging, links, order and every filter. */
import type { Response } from 'supertest';
import { cpf } from '../support/factories';
import { expectErrorBody } from '../support/error-body';
import { startTestApp, type Agency, type TestApp } from '../support/test-app';
import { created, expectDetailFor, listGuarantees, setStatus, withTenant, type GuaranteeJson } from './guarantee-http';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const ids = (response: Response) => (response.body._embedded.rentalInsurances as GuaranteeJson[]).map((item) => item.id);

/** Creates `count` guarantees one after the other; returns their ids newest first. */
async function createMany(agency: Agency, count: number, overrides: Record<string, unknown> = {}): Promise<number[]> {
  const result: number[] = [];
  for (let index = 0; index < count; index++) result.push((await created(t, agency, overrides)).id);
  return result.reverse();
}

function linkOf(response: Response, name: string): URL | undefined {
  const link = response.body._links[name] as { href: string } | undefined;
  return link ? new URL(link.href) : undefined;
}

/** Which links are present, and the page and pageSize each one names. */
function linkPages(response: Response): Record<string, { page: string | null; pageSize: string | null }> {
  const pages: Record<string, { page: string | null; pageSize: string | null }> = {};
  for (const name of Object.keys(response.body._links)) {
    const url = linkOf(response, name)!;
    pages[name] = { page: url.searchParams.get('page'), pageSize: url.searchParams.get('pageSize') };
  }
  return pages;
}

describe('When a partner lists without paging parameters', () => {
  let agency: Agency;
  let newestFirst: number[];
  beforeAll(async () => {
    agency = await t.newAgency();
    newestFirst = await createMany(agency, 23);
  });

  test('then it gets the first 20, newest first, with page metadata and absolute links', async () => {
    const response = await listGuarantees(t, agency);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(response.body).sort()).toEqual(['_embedded', '_links', 'page']);
    expect(ids(response)).toEqual(newestFirst.slice(0, 20));
    expect(response.body.page).toEqual({ size: 20, totalElements: 23, totalPages: 2, number: 0 });
    expect(linkPages(response)).toEqual({
      self: { page: '0', pageSize: '20' },
      first: { page: '0', pageSize: '20' },
      last: { page: '1', pageSize: '20' },
      next: { page: '1', pageSize: '20' },
    });
    const self = linkOf(response, 'self')!;
    expect(self.protocol).toBe('http:');
    expect(self.pathname).toBe('/rental-guarantee/v1/rental-insurances');
  });

  test('then the second page holds the rest, with prev and without next', async () => {
    const response = await listGuarantees(t, agency, [['page', 1]]);
    expect(ids(response)).toEqual(newestFirst.slice(20));
    expect(response.body.page).toEqual({ size: 20, totalElements: 23, totalPages: 2, number: 1 });
    expect(linkPages(response)).toEqual({
      self: { page: '1', pageSize: '20' },
      first: { page: '0', pageSize: '20' },
      last: { page: '1', pageSize: '20' },
      prev: { page: '0', pageSize: '20' },
    });
  });

  test('then a middle page has both prev and next', async () => {
    const response = await listGuarantees(t, agency, [['page', 2], ['pageSize', 5]]);
    expect(ids(response)).toEqual(newestFirst.slice(10, 15));
    expect(response.body.page).toEqual({ size: 5, totalElements: 23, totalPages: 5, number: 2 });
    expect(linkPages(response)).toEqual({
      self: { page: '2', pageSize: '5' },
      first: { page: '0', pageSize: '5' },
      last: { page: '4', pageSize: '5' },
      prev: { page: '1', pageSize: '5' },
      next: { page: '3', pageSize: '5' },
    });
  });

  test('then walking every page with next visits each guarantee exactly once, newest first', async () => {
    const seen: number[] = [];
    let response = await listGuarantees(t, agency, [['pageSize', 7]]);
    for (;;) {
      seen.push(...ids(response));
      const next = linkOf(response, 'next');
      if (!next) break;
      response = await listGuarantees(t, agency, [...next.searchParams.entries()]);
    }
    expect(seen).toEqual(newestFirst);
  });

  test('then guarantees created in the same millisecond are ordered by id, newest first', async () => {
    const own = await t.newAgency();
    const sameInstant = await createMany(own, 3);
    await t.db.rentalInsurance.updateMany({ where: { companyId: own.companyId }, data: { createdAt: new Date('2026-01-01T00:00:00.000Z') } });
    const older = await createMany(own, 1);
    await t.db.rentalInsurance.update({ where: { id: BigInt(older[0]!) }, data: { createdAt: new Date('2025-01-01T00:00:00.000Z') } });
    const response = await listGuarantees(t, own);
    expect(ids(response)).toEqual([...sameInstant, ...older]);
    // createdAt, not id, decides first: the latest id was given the oldest createdAt.
    expect(sameInstant.every((id) => id < older[0]!)).toBe(true);
  });
});

describe('When a partner sends out-of-range paging parameters', () => {
  let agency: Agency;
  beforeAll(async () => {
    agency = await t.newAgency();
    await createMany(agency, 3);
  });

  test('then a negative page is treated as page 0', async () => {
    const response = await listGuarantees(t, agency, [['page', -4], ['pageSize', 2]]);
    expect(response.status).toBe(200);
    expect(response.body.page).toEqual({ size: 2, totalElements: 3, totalPages: 2, number: 0 });
    expect(response.body._embedded.rentalInsurances).toHaveLength(2);
    expect(linkPages(response)).toEqual({
      self: { page: '0', pageSize: '2' },
      first: { page: '0', pageSize: '2' },
      last: { page: '1', pageSize: '2' },
      next: { page: '1', pageSize: '2' },
    });
  });

  test('then pageSize 0 is clamped to 1', async () => {
    const response = await listGuarantees(t, agency, [['pageSize', 0]]);
    expect(response.status).toBe(200);
    expect(response.body.page).toEqual({ size: 1, totalElements: 3, totalPages: 3, number: 0 });
    expect(response.body._embedded.rentalInsurances).toHaveLength(1);
    expect(linkOf(response, 'next')!.searchParams.get('pageSize')).toBe('1');
  });

  test('then a negative pageSize is clamped to 1', async () => {
    const response = await listGuarantees(t, agency, [['pageSize', -10]]);
    expect(response.status).toBe(200);
    expect(response.body.page.size).toBe(1);
  });

  test('then pageSize 500 is clamped to 200', async () => {
    const response = await listGuarantees(t, agency, [['pageSize', 500]]);
    expect(response.status).toBe(200);
    expect(response.body.page).toEqual({ size: 200, totalElements: 3, totalPages: 1, number: 0 });
    expect(response.body._embedded.rentalInsurances).toHaveLength(3);
    expect(linkOf(response, 'self')!.searchParams.get('pageSize')).toBe('200');
    expect(linkOf(response, 'last')!.searchParams.get('pageSize')).toBe('200');
  });

  test('then a page past the end is empty with correct metadata and prev pointing at the last page', async () => {
    const response = await listGuarantees(t, agency, [['page', 5], ['pageSize', 2]]);
    expect(response.status).toBe(200);
    expect(response.body._embedded).toEqual({ rentalInsurances: [] });
    expect(response.body.page).toEqual({ size: 2, totalElements: 3, totalPages: 2, number: 5 });
    expect(linkPages(response)).toEqual({
      self: { page: '5', pageSize: '2' },
      first: { page: '0', pageSize: '2' },
      last: { page: '1', pageSize: '2' },
      prev: { page: '1', pageSize: '2' },
    });
  });

  test('then the page right after the last is empty and its prev is the last page', async () => {
    const response = await listGuarantees(t, agency, [['page', 2], ['pageSize', 2]]);
    expect(response.body._embedded.rentalInsurances).toEqual([]);
    expect(response.body.page.number).toBe(2);
    expect(linkPages(response)['prev']).toEqual({ page: '1', pageSize: '2' });
    expect(response.body._links.next).toBeUndefined();
  });

  test('then a very large page number is still answered empty with number = the requested page', async () => {
    const response = await listGuarantees(t, agency, [['page', 5_000_000_000], ['pageSize', 2]]);
    expect(response.status).toBe(200);
    expect(response.body._embedded.rentalInsurances).toEqual([]);
    expect(response.body.page).toEqual({ size: 2, totalElements: 3, totalPages: 2, number: 5_000_000_000 });
    expect(linkPages(response)['self']).toEqual({ page: '5000000000', pageSize: '2' });
  });

  test('then an agency with no guarantees gets an empty page, last = first = page 0 and no prev/next', async () => {
    const empty = await t.newAgency();
    const response = await listGuarantees(t, empty);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      _embedded: { rentalInsurances: [] },
      _links: { self: expect.any(Object), first: expect.any(Object), last: expect.any(Object) },
      page: { size: 20, totalElements: 0, totalPages: 0, number: 0 },
    });
    expect(linkPages(response)).toEqual({
      self: { page: '0', pageSize: '20' },
      first: { page: '0', pageSize: '20' },
      last: { page: '0', pageSize: '20' },
    });
  });

  test.each([
    ['page', 'abc'],
    ['page', '1.5'],
    ['pageSize', 'ten'],
    ['pageSize', '2.5'],
  ])('then %s=%s (not an integer) is 400 validation_failed naming the parameter', async (name, value) => {
    const response = await listGuarantees(t, agency, [[name, value]]);
    expectErrorBody(response, 400, 'validation_failed');
    expectDetailFor(response, `query.${name}`);
  });

  test('then a status outside the enumeration is 400 validation_failed naming the parameter', async () => {
    const response = await listGuarantees(t, agency, [['status', 'pending']]);
    expectErrorBody(response, 400, 'validation_failed');
    expect(response.body.details.join('\n')).toMatch(/^query\.status/m);
  });
});

describe('When a partner filters the list', () => {
  let agency: Agency;
  const tenantCpf = cpf(123456780);
  const otherCpf = cpf(223456780);
  let byId: Record<string, number>;

  beforeAll(async () => {
    agency = await t.newAgency();
    const make = async (name: string, tenant: Record<string, unknown>, propertyExternalId: string) => {
      const base = withTenant(tenant);
      const body = await created(t, agency, {
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
    await setStatus(t, byId['jose']!, 'approved');
    await setStatus(t, byId['joseph']!, 'accepted');
    await setStatus(t, byId['ana']!, 'declined');
  });

  const filtered = async (query: Array<[string, string]>) => {
    const response = await listGuarantees(t, agency, query);
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
    expect(await filtered([['status', 'approved'], ['status', 'declined']])).toEqual(idsOf('jose', 'ana'));
    expect(await filtered([['status', 'approved'], ['status', 'accepted'], ['status', 'declined']])).toEqual(idsOf('jose', 'joseph', 'ana'));
    expect(await filtered([['status', 'terminated'], ['status', 'archived']])).toEqual([]);
  });

  test('then different filters combine with AND', async () => {
    expect(await filtered([['tenantName', 'jose'], ['propertyExternalId', 'IMV-1']])).toEqual(idsOf('jose', 'joseph'));
    expect(await filtered([['tenantName', 'jose'], ['status', 'accepted']])).toEqual(idsOf('joseph'));
    expect(await filtered([['tenantCpfCnpj', tenantCpf], ['status', 'declined']])).toEqual(idsOf('ana'));
    expect(await filtered([['tenantCpfCnpj', tenantCpf], ['propertyExternalId', 'IMV-1'], ['tenantName', 'silva'], ['status', 'approved']])).toEqual(
      idsOf('jose'),
    );
    expect(await filtered([['tenantCpfCnpj', tenantCpf], ['propertyExternalId', 'IMV-3']])).toEqual([]);
    expect(await filtered([['tenantName', 'ana'], ['status', 'approved']])).toEqual([]);
  });

  test('then the links keep every filter, repeated statuses included, and the applied page size', async () => {
    const response = await listGuarantees(t, agency, [
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
      expect(params.get('pageSize')).toBe('200');
    }
    expect(linkOf(response, 'self')!.searchParams.get('page')).toBe('3');
  });

  test('then following a filtered next link keeps filtering', async () => {
    const first = await listGuarantees(t, agency, [['propertyExternalId', 'IMV-1'], ['pageSize', 1]]);
    expect(first.body.page).toEqual({ size: 1, totalElements: 2, totalPages: 2, number: 0 });
    const next = linkOf(first, 'next')!;
    const second = await listGuarantees(t, agency, [...next.searchParams.entries()]);
    expect(second.body.page).toEqual({ size: 1, totalElements: 2, totalPages: 2, number: 1 });
    expect([...ids(first), ...ids(second)].sort((a, b) => a - b)).toEqual(idsOf('jose', 'joseph'));
  });
});
