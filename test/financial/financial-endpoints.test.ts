/** GET /v1/financial/{balance,daily-summaries,statement-entries}: the partner's view of its ledger. */
import request from 'supertest';
import { startTestApp, API, type Agency, type TestApp } from '../support/test-app';
import { expectErrorBody } from '../support/error-body';
import { CREDIT_TYPES, DEBIT_TYPES, STATEMENT_TYPES } from '../../src/financial/ledger-rules';
import { addDays } from '../../src/financial/date-range';
import { daysFromToday, entry, money, postEntries, seededRandom, type EntrySeed } from './ledger-factory';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const get = (agency: Agency, path: string) => request(t.app).get(`${API}/v1/financial/${path}`).set(agency.auth);

interface Summary {
  date: string;
  openingBalance: number;
  closingBalance: number;
  credits: number;
  debits: number;
}

describe('When an agency reads its balance', () => {
  test('then a new agency has everything at 0', async () => {
    const agency = await t.newAgency({ scopes: ['ri:financial:read'] });
    const response = await get(agency, 'balance');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body).toEqual({ balance: 0, credits: 0, debits: 0 });
  });

  test('then 200 random entries add up exactly (credits - debits, in cents)', async () => {
    const agency = await t.newAgency();
    const random = seededRandom(20261122);
    const seeds: EntrySeed[] = [];
    let credits = 0n;
    let debits = 0n;
    for (let i = 0; i < 200; i += 1) {
      const type = STATEMENT_TYPES[Math.floor(random() * STATEMENT_TYPES.length)]!;
      // Up to 1,000,000.00 with arbitrary cents: amounts a float sum would get wrong.
      const cents = BigInt(1 + Math.floor(random() * 100_000_000));
      seeds.push(entry(daysFromToday(-Math.floor(random() * 800)), type, cents));
      if ((CREDIT_TYPES as string[]).includes(type)) credits += cents;
      else debits += cents;
    }
    await postEntries(t.db, agency.companyId, seeds);
    const response = await get(agency, 'balance');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ balance: money(credits - debits), credits: money(credits), debits: money(debits) });
    expect(DEBIT_TYPES.length + CREDIT_TYPES.length).toBe(7);

    // The balance is today's closing balance, whatever range leads there.
    const summaries = await get(agency, `daily-summaries?startDate=${daysFromToday(-365)}&endDate=${daysFromToday(0)}`);
    expect(summaries.status).toBe(200);
    expect(summaries.body).toHaveLength(366);
    expect(summaries.body.at(-1).closingBalance).toBe(response.body.balance);
  });

  test('then a negative balance is reported as such, and an entry dated tomorrow is not counted yet', async () => {
    const agency = await t.newAgency();
    await postEntries(t.db, agency.companyId, [
      entry(daysFromToday(-3), 'charge_paid', 10_000n),
      entry(daysFromToday(0), 'fee', 25_050n),
      entry(daysFromToday(1), 'transfer_received', 99_900n),
    ]);
    const response = await get(agency, 'balance');
    expect(response.body).toEqual({ balance: -150.5, credits: 100, debits: 250.5 });
  });
});

describe('When an agency lists daily summaries', () => {
  let agency: Agency;
  beforeAll(async () => {
    agency = await t.newAgency();
    await postEntries(t.db, agency.companyId, [
      entry('2025-01-10', 'charge_paid', 1_000_00n), // before the range: opening balance 1,000.00 - 0.10
      entry('2025-01-10', 'fee', 10n),
      entry('2025-01-30', 'revenue_shared', 150_025n),
      entry('2025-01-30', 'fee', 31_750n),
      entry('2025-01-30', 'charge_refunded', 1n),
      entry('2025-02-01', 'transfer_sent', 500_000n),
      entry('2025-02-03', 'transfer_refunded', 500_000n),
      entry('2025-02-10', 'fee', 99n), // after the range
    ]);
  });

  test('then each day chains to the next across empty days and the month boundary', async () => {
    const response = await get(agency, 'daily-summaries?startDate=2025-01-29&endDate=2025-02-04');
    expect(response.status).toBe(200);
    expect(response.body).toEqual([
      { date: '2025-01-29', openingBalance: 999.9, closingBalance: 999.9, credits: 0, debits: 0 },
      { date: '2025-01-30', openingBalance: 999.9, closingBalance: 2182.64, credits: 1500.25, debits: 317.51 },
      { date: '2025-01-31', openingBalance: 2182.64, closingBalance: 2182.64, credits: 0, debits: 0 },
      { date: '2025-02-01', openingBalance: 2182.64, closingBalance: -2817.36, credits: 0, debits: 5000 },
      { date: '2025-02-02', openingBalance: -2817.36, closingBalance: -2817.36, credits: 0, debits: 0 },
      { date: '2025-02-03', openingBalance: -2817.36, closingBalance: 2182.64, credits: 5000, debits: 0 },
      { date: '2025-02-04', openingBalance: 2182.64, closingBalance: 2182.64, credits: 0, debits: 0 },
    ]);
  });

  test('then a one-day range before any entry is a single day at 0', async () => {
    const response = await get(agency, 'daily-summaries?startDate=2024-12-31&endDate=2024-12-31');
    expect(response.body).toEqual([{ date: '2024-12-31', openingBalance: 0, closingBalance: 0, credits: 0, debits: 0 }]);
  });

  test('then a range of exactly 366 days is accepted, and every closing equals the next opening', async () => {
    const response = await get(agency, 'daily-summaries?startDate=2024-06-01&endDate=2025-06-01');
    expect(response.status).toBe(200);
    const days = response.body as Summary[];
    expect(days).toHaveLength(366);
    expect(days[0]!.date).toBe('2024-06-01');
    expect(days.at(-1)!.date).toBe('2025-06-01');
    for (let i = 1; i < days.length; i += 1) {
      expect(days[i]!.date).toBe(addDays(days[i - 1]!.date, 1));
      expect(days[i]!.openingBalance).toBe(days[i - 1]!.closingBalance);
    }
    for (const day of days) expect(Math.round((day.openingBalance + day.credits - day.debits) * 100)).toBe(Math.round(day.closingBalance * 100));
    expect(days.at(-1)!.closingBalance).toBe(2181.65);
  });

  test('then days after today are not returned, and today covers the entries so far', async () => {
    const own = await t.newAgency();
    await postEntries(t.db, own.companyId, [entry(daysFromToday(-1), 'charge_paid', 100n), entry(daysFromToday(0), 'fee', 30n)]);
    const response = await get(own, `daily-summaries?startDate=${daysFromToday(-2)}&endDate=${daysFromToday(5)}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual([
      { date: daysFromToday(-2), openingBalance: 0, closingBalance: 0, credits: 0, debits: 0 },
      { date: daysFromToday(-1), openingBalance: 0, closingBalance: 1, credits: 1, debits: 0 },
      { date: daysFromToday(0), openingBalance: 1, closingBalance: 0.7, credits: 0, debits: 0.3 },
    ]);
  });

  test('then a range entirely in the future is an empty array', async () => {
    const response = await get(agency, `daily-summaries?startDate=${daysFromToday(1)}&endDate=${daysFromToday(30)}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual([]);
  });
});

describe('When the date range is wrong', () => {
  let agency: Agency;
  beforeAll(async () => {
    agency = await t.newAgency();
  });

  describe.each([['daily-summaries'], ['statement-entries']])('on %s', (path) => {
    test('then startDate after endDate is 400 invalid_date_range', async () => {
      const response = await get(agency, `${path}?startDate=2025-03-02&endDate=2025-03-01`);
      expectErrorBody(response, 400, 'invalid_date_range');
    });

    test('then a range of 367 days is 400 invalid_date_range', async () => {
      const response = await get(agency, `${path}?startDate=2024-06-01&endDate=2025-06-02`);
      expectErrorBody(response, 400, 'invalid_date_range');
    });

    test('then a range of 366 days across a leap day is accepted', async () => {
      const response = await get(agency, `${path}?startDate=2024-01-01&endDate=2024-12-31`);
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
      const response = await get(agency, `${path}?${query}`);
      expectErrorBody(response, 400, 'validation_failed');
    });
  });
});

describe('When an agency lists statement entries', () => {
  let agency: Agency;
  let ids: bigint[];
  beforeAll(async () => {
    agency = await t.newAgency();
    // 25 entries over 5 days of March 2025, 5 per day, cycling through every type.
    const seeds: EntrySeed[] = [];
    for (let i = 0; i < 25; i += 1) {
      seeds.push(entry(`2025-03-0${1 + (i % 5)}`, STATEMENT_TYPES[i % 7]!, BigInt(100 * (i + 1)), i % 3 === 0 ? null : `entry ${i}`));
    }
    ids = (await postEntries(t.db, agency.companyId, seeds)).map((row) => row.id);
    await postEntries(t.db, agency.companyId, [entry('2025-02-28', 'fee', 1n), entry('2025-03-06', 'fee', 1n)]);
  });

  const expectedOrder = (filter: (i: number) => boolean = () => true) =>
    ids
      .map((id, i) => ({ id: Number(id), date: `2025-03-0${1 + (i % 5)}`, i }))
      .filter(({ i }) => filter(i))
      .sort((a, b) => (a.date === b.date ? b.id - a.id : a.date < b.date ? 1 : -1))
      .map(({ id }) => id);

  test('then the first page holds 20 entries, newest first by date then id, with HAL links and metadata', async () => {
    const response = await get(agency, 'statement-entries?startDate=2025-03-01&endDate=2025-03-05');
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
    const response = await get(agency, 'statement-entries?startDate=2025-03-01&endDate=2025-03-05&page=1');
    expect(response.body._embedded.statementEntries.map((e: { id: number }) => e.id)).toEqual(expectedOrder().slice(20));
    expect(response.body.page).toEqual({ size: 20, totalElements: 25, totalPages: 2, number: 1 });
    expect(response.body._links.next).toBeUndefined();
    expect(new URL(response.body._links.prev.href).searchParams.get('page')).toBe('0');
  });

  test('then repeated type values combine with OR and every link keeps them', async () => {
    const response = await get(agency, 'statement-entries?startDate=2025-03-01&endDate=2025-03-05&type=fee&type=charge_paid&pageSize=2&page=1');
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
    const response = await get(agency, 'statement-entries?startDate=2025-03-01&endDate=2025-03-05&type=transfer_received');
    const types = response.body._embedded.statementEntries.map((e: { type: string }) => e.type);
    expect(types.length).toBeGreaterThan(0);
    expect(new Set(types)).toEqual(new Set(['transfer_received']));
    expect(response.body._embedded.statementEntries.every((e: { amount: number }) => e.amount > 0)).toBe(true);
  });

  test('then an unknown type is 400 validation_failed', async () => {
    const response = await get(agency, 'statement-entries?startDate=2025-03-01&endDate=2025-03-05&type=fee&type=bonus');
    expectErrorBody(response, 400, 'validation_failed');
  });

  test('then the range bounds are inclusive', async () => {
    const response = await get(agency, 'statement-entries?startDate=2025-02-28&endDate=2025-03-06&pageSize=200');
    expect(response.body.page.totalElements).toBe(27);
    const dates = response.body._embedded.statementEntries.map((e: { date: string }) => e.date);
    expect(dates[0]).toBe('2025-03-06');
    expect(dates.at(-1)).toBe('2025-02-28');
  });

  test('then a page beyond the last is empty with correct metadata and prev pointing at the last page', async () => {
    const response = await get(agency, 'statement-entries?startDate=2025-03-01&endDate=2025-03-05&page=7&pageSize=10');
    expect(response.status).toBe(200);
    expect(response.body._embedded.statementEntries).toEqual([]);
    expect(response.body.page).toEqual({ size: 10, totalElements: 25, totalPages: 3, number: 7 });
    expect(new URL(response.body._links.prev.href).searchParams.get('page')).toBe('2');
    expect(response.body._links.next).toBeUndefined();
  });

  test('then pageSize is clamped to 1..200 and a negative page is page 0', async () => {
    const big = await get(agency, 'statement-entries?startDate=2025-03-01&endDate=2025-03-05&pageSize=500&page=-3');
    expect(big.body.page).toEqual({ size: 200, totalElements: 25, totalPages: 1, number: 0 });
    const tiny = await get(agency, 'statement-entries?startDate=2025-03-01&endDate=2025-03-05&pageSize=0');
    expect(tiny.body.page).toEqual({ size: 1, totalElements: 25, totalPages: 25, number: 0 });
  });

  test('then a non-integer page is 400 validation_failed', async () => {
    const response = await get(agency, 'statement-entries?startDate=2025-03-01&endDate=2025-03-05&page=one');
    expectErrorBody(response, 400, 'validation_failed');
  });

  test('then a range without entries is an empty page', async () => {
    const response = await get(agency, 'statement-entries?startDate=2020-01-01&endDate=2020-12-31');
    expect(response.body._embedded.statementEntries).toEqual([]);
    expect(response.body.page).toEqual({ size: 20, totalElements: 0, totalPages: 0, number: 0 });
    expect(response.body._links.next).toBeUndefined();
    expect(response.body._links.prev).toBeUndefined();
  });
});

describe('When two agencies have entries', () => {
  test("then each sees only its own, on every endpoint", async () => {
    const a = await t.newAgency();
    const b = await t.newAgency();
    const day = daysFromToday(-1);
    await postEntries(t.db, a.companyId, [entry(day, 'charge_paid', 10_000n, 'A')]);
    await postEntries(t.db, b.companyId, [entry(day, 'fee', 777n, 'B'), entry(day, 'revenue_shared', 5n, 'B')]);

    expect((await get(a, 'balance')).body).toEqual({ balance: 100, credits: 100, debits: 0 });
    expect((await get(b, 'balance')).body).toEqual({ balance: -7.72, credits: 0.05, debits: 7.77 });

    const summariesA = await get(a, `daily-summaries?startDate=${day}&endDate=${day}`);
    expect(summariesA.body).toEqual([{ date: day, openingBalance: 0, closingBalance: 100, credits: 100, debits: 0 }]);

    const entriesA = await get(a, `statement-entries?startDate=${day}&endDate=${day}`);
    expect(entriesA.body._embedded.statementEntries.map((e: { description: string }) => e.description)).toEqual(['A']);
    const entriesB = await get(b, `statement-entries?startDate=${day}&endDate=${day}`);
    expect(entriesB.body._embedded.statementEntries.map((e: { description: string }) => e.description)).toEqual(['B', 'B']);
  });
});

describe('When the token is missing or lacks ri:financial:read', () => {
  const paths = [
    ['balance'],
    ['daily-summaries?startDate=2025-01-01&endDate=2025-01-31'],
    ['statement-entries?startDate=2025-01-01&endDate=2025-01-31'],
  ];

  test.each(paths)('then GET %s without a token is 401 with a bare Bearer challenge', async (path) => {
    const response = await request(t.app).get(`${API}/v1/financial/${path}`);
    expectErrorBody(response, 401, 'unauthorized');
    expect(response.headers['www-authenticate']).toBe('Bearer realm="rental-guarantee"');
  });

  test.each(paths)('then GET %s with an unknown token is 401 invalid_token', async (path) => {
    const response = await request(t.app).get(`${API}/v1/financial/${path}`).set('Authorization', 'Bearer sbx_at_nope');
    expectErrorBody(response, 401, 'unauthorized');
    expect(response.headers['www-authenticate']).toBe('Bearer realm="rental-guarantee", error="invalid_token"');
  });

  test.each(paths)('then GET %s with only the rental-insurance scopes is 403 insufficient_scope', async (path) => {
    const agency = await t.newAgency({ scopes: ['ri:rental-insurances:read', 'ri:rental-insurances:write'] });
    await postEntries(t.db, agency.companyId, [entry('2025-01-05', 'charge_paid', 100n)]);
    const response = await get(agency, path);
    expectErrorBody(response, 403, 'insufficient_scope');
    expect(response.headers['www-authenticate']).toBe(
      'Bearer realm="rental-guarantee", error="insufficient_scope", scope="ri:financial:read"',
    );
    expect(JSON.stringify(response.body)).not.toContain('"balance"');
  });
});
