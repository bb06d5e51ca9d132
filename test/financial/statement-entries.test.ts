/** GET /v1/financial/statement-entries: pages, order, type filters; and the date range rules it shares with daily-summaries. */
import { FINANCIAL, asPartner } from '../support/partner-api';
import { useTestApp, type Agency } from '../support/test-app';
import { expectErrorBody } from '../support/error-body';
import { STATEMENT_TYPES } from '../../src/financial/ledger-rules';
import { entry, postEntries, type EntrySeed } from './ledger-factory';

const world = useTestApp();

describe('When the date range is wrong', () => {
  let agency: Agency;
  const partner = asPartner(world, () => agency);
  beforeAll(async () => {
    agency = await world.newAgency();
  });

  describe.each([['daily-summaries'], ['statement-entries']])('on %s', (path) => {
    test('then startDate after endDate is 400 invalid_date_range', async () => {
      const response = await partner.request('get', `${FINANCIAL}/${path}?startDate=2025-03-02&endDate=2025-03-01`);
      expectErrorBody(response, 400, 'invalid_date_range');
    });

    test('then a range of 367 days is 400 invalid_date_range', async () => {
      const response = await partner.request('get', `${FINANCIAL}/${path}?startDate=2024-06-01&endDate=2025-06-02`);
      expectErrorBody(response, 400, 'invalid_date_range');
    });

    test('then a range of 366 days across a leap day is accepted', async () => {
      const response = await partner.request('get', `${FINANCIAL}/${path}?startDate=2024-01-01&endDate=2024-12-31`);
      expect(response.status).toBe(200);
    });

    test.each([
      ['a month 13', 'startDate=2025-13-01&endDate=2025-12-31'],
      ['30 February', 'startDate=2025-02-30&endDate=2025-03-31'],
      ['a date with a time', 'startDate=2025-01-01T00:00:00Z&endDate=2025-01-31'],
      ['a day-first date', 'startDate=01-01-2025&endDate=2025-01-31'],
      ['a missing startDate', 'endDate=2025-01-31'],
      ['a missing endDate', 'startDate=2025-01-01'],
    ])('then %s is 400 validation_failed', async (_name, query) => {
      const response = await partner.request('get', `${FINANCIAL}/${path}?${query}`);
      expectErrorBody(response, 400, 'validation_failed');
    });
  });
});

describe('When an agency lists statement entries', () => {
  let agency: Agency;
  const partner = asPartner(world, () => agency);
  let ids: bigint[];
  beforeAll(async () => {
    agency = await world.newAgency();
    // 25 entries over 5 days of March 2025, 5 per day, cycling through every type.
    const seeds: EntrySeed[] = [];
    for (let i = 0; i < 25; i += 1) {
      seeds.push(entry(`2025-03-0${1 + (i % 5)}`, STATEMENT_TYPES[i % 7]!, BigInt(100 * (i + 1)), i % 3 === 0 ? null : `entry ${i}`));
    }
    ids = (await postEntries(world.db, agency.companyId, seeds)).map((row) => row.id);
    await postEntries(world.db, agency.companyId, [entry('2025-02-28', 'fee', 1n), entry('2025-03-06', 'fee', 1n)]);
  });

  const expectedOrder = (filter: (i: number) => boolean = () => true) =>
    ids
      .map((id, i) => ({ id: Number(id), date: `2025-03-0${1 + (i % 5)}`, i }))
      .filter(({ i }) => filter(i))
      .sort((a, b) => (a.date === b.date ? b.id - a.id : a.date < b.date ? 1 : -1))
      .map(({ id }) => id);

  test('then the first page holds 20 entries, newest first by date then id, with HAL links and metadata', async () => {
    const response = await partner.statementEntries('startDate=2025-03-01&endDate=2025-03-05');
    expect(response.status).toBe(200);
    const entries = response.body._embedded.statementEntries;
    expect(entries.map((e: { id: number }) => e.id)).toEqual(expectedOrder().slice(0, 20));
    expect(response.body.page).toEqual({ size: 20, totalElements: 25, totalPages: 2, number: 0 });
    expect(Object.keys(response.body._links).sort()).toEqual(['first', 'last', 'next', 'self']);
    const next = new URL(response.body._links.next.href);
    expect(next.pathname).toBe('/rental-guarantee/v1/financial/statement-entries');
    expect(Object.fromEntries(next.searchParams)).toEqual({ startDate: '2025-03-01', endDate: '2025-03-05', page: '1', pageSize: '20' });
    const byId = (i: number) => entries.find((e: { id: number }) => e.id === Number(ids[i]));
    expect(byId(24)).toEqual({ id: Number(ids[24]), date: '2025-03-05', description: null, amount: 25, type: 'transfer_received' });
    expect(byId(23)).toEqual({ id: Number(ids[23]), date: '2025-03-04', description: 'entry 23', amount: 24, type: 'transfer_refunded' });
    expect(byId(19)).toEqual({ id: Number(ids[19]), date: '2025-03-05', description: 'entry 19', amount: -20, type: 'fee' });
  });

  test('then the next page holds the rest', async () => {
    const response = await partner.statementEntries('startDate=2025-03-01&endDate=2025-03-05&page=1');
    expect(response.body._embedded.statementEntries.map((e: { id: number }) => e.id)).toEqual(expectedOrder().slice(20));
    expect(response.body.page).toEqual({ size: 20, totalElements: 25, totalPages: 2, number: 1 });
    expect(response.body._links.next).toBeUndefined();
    expect(new URL(response.body._links.prev.href).searchParams.get('page')).toBe('0');
  });

  test('then repeated type values combine with OR and every link keeps them', async () => {
    const response = await partner.statementEntries('startDate=2025-03-01&endDate=2025-03-05&type=fee&type=charge_paid&pageSize=2&page=1');
    expect(response.status).toBe(200);
    const wanted = expectedOrder((i) => ['fee', 'charge_paid'].includes(STATEMENT_TYPES[i % 7]!));
    expect(response.body.page).toEqual({ size: 2, totalElements: wanted.length, totalPages: Math.ceil(wanted.length / 2), number: 1 });
    expect(response.body._embedded.statementEntries.map((e: { id: number }) => e.id)).toEqual(wanted.slice(2, 4));
    for (const name of ['self', 'first', 'last', 'prev', 'next']) {
      const url = new URL(response.body._links[name].href);
      expect(url.searchParams.getAll('type')).toEqual(['fee', 'charge_paid']);
      expect(url.searchParams.get('startDate')).toBe('2025-03-01');
      expect(url.searchParams.get('endDate')).toBe('2025-03-05');
      expect(url.searchParams.get('pageSize')).toBe('2');
    }
    expect(new URL(response.body._links.last.href).searchParams.get('page')).toBe(String(Math.ceil(wanted.length / 2) - 1));
  });

  test('then a single type selects only that type', async () => {
    const response = await partner.statementEntries('startDate=2025-03-01&endDate=2025-03-05&type=transfer_received');
    const types = response.body._embedded.statementEntries.map((e: { type: string }) => e.type);
    expect(types.length).toBeGreaterThan(0);
    expect(new Set(types)).toEqual(new Set(['transfer_received']));
    expect(response.body._embedded.statementEntries.every((e: { amount: number }) => e.amount > 0)).toBe(true);
  });

  test('then an unknown type is 400 validation_failed', async () => {
    const response = await partner.statementEntries('startDate=2025-03-01&endDate=2025-03-05&type=fee&type=bonus');
    expectErrorBody(response, 400, 'validation_failed');
  });

  test('then the range bounds are inclusive', async () => {
    const response = await partner.statementEntries('startDate=2025-02-28&endDate=2025-03-06&pageSize=200');
    expect(response.body.page.totalElements).toBe(27);
    const dates = response.body._embedded.statementEntries.map((e: { date: string }) => e.date);
    expect(dates[0]).toBe('2025-03-06');
    expect(dates.at(-1)).toBe('2025-02-28');
  });

  test('then a page beyond the last is empty with correct metadata and prev pointing at the last page', async () => {
    const response = await partner.statementEntries('startDate=2025-03-01&endDate=2025-03-05&page=7&pageSize=10');
    expect(response.status).toBe(200);
    expect(response.body._embedded.statementEntries).toEqual([]);
    expect(response.body.page).toEqual({ size: 10, totalElements: 25, totalPages: 3, number: 7 });
    expect(new URL(response.body._links.prev.href).searchParams.get('page')).toBe('2');
    expect(response.body._links.next).toBeUndefined();
  });

  test('then pageSize is clamped to 1..200 and a negative page is page 0', async () => {
    const big = await partner.statementEntries('startDate=2025-03-01&endDate=2025-03-05&pageSize=500&page=-3');
    expect(big.body.page).toEqual({ size: 200, totalElements: 25, totalPages: 1, number: 0 });
    const tiny = await partner.statementEntries('startDate=2025-03-01&endDate=2025-03-05&pageSize=0');
    expect(tiny.body.page).toEqual({ size: 1, totalElements: 25, totalPages: 25, number: 0 });
  });

  test('then a non-integer page is 400 validation_failed', async () => {
    const response = await partner.statementEntries('startDate=2025-03-01&endDate=2025-03-05&page=one');
    expectErrorBody(response, 400, 'validation_failed');
  });

  test('then a range without entries is an empty page', async () => {
    const response = await partner.statementEntries('startDate=2020-01-01&endDate=2020-12-31');
    expect(response.body._embedded.statementEntries).toEqual([]);
    expect(response.body.page).toEqual({ size: 20, totalElements: 0, totalPages: 0, number: 0 });
    expect(response.body._links.next).toBeUndefined();
    expect(response.body._links.prev).toBeUndefined();
  });
});

describe('When entries are written by any writer, in bulk or one by one, at the same time', () => {
  let agency: Agency;
  const partner = asPartner(world, () => agency);
  beforeAll(async () => {
    agency = await world.newAgency();
  });

  test('then totalElements counts every entry of the range exactly once, with and without type filters', async () => {
    // A statement of 300 rows from outside the posting service (as a previous release or a data
    // fix would write them), next to postings of the service made concurrently.
    const bulk = world.db.statementEntry.createMany({
      data: Array.from({ length: 300 }, (_, index) => ({
        companyId: agency.companyId,
        date: new Date(`2025-04-0${1 + (index % 3)}T00:00:00Z`),
        description: null,
        amount: index % 2 === 0 ? '10.00' : '-5.00',
        type: index % 2 === 0 ? ('charge_paid' as const) : ('fee' as const),
      })),
    });
    const postings = Array.from({ length: 5 }, (_, index) =>
      postEntries(world.db, agency.companyId, [entry('2025-04-02', 'revenue_shared', BigInt(100 + index))]),
    );
    await Promise.all([bulk, ...postings]);

    const all = await partner.statementEntries('startDate=2025-04-01&endDate=2025-04-03');
    expect(all.body.page.totalElements).toBe(305);
    const fees = await partner.statementEntries('startDate=2025-04-01&endDate=2025-04-03&type=fee');
    expect(fees.body.page.totalElements).toBe(150);
    const twoTypes = await partner.statementEntries('startDate=2025-04-02&endDate=2025-04-02&type=fee&type=revenue_shared');
    expect(twoTypes.body.page.totalElements).toBe(
      await world.db.statementEntry.count({
        where: { companyId: agency.companyId, date: new Date('2025-04-02T00:00:00Z'), type: { in: ['fee', 'revenue_shared'] } },
      }),
    );
    expect(twoTypes.body.page.totalElements).toBe(55);
  });
});
