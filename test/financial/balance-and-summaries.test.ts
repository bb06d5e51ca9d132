/** GET /v1/financial/balance and daily-summaries: the partner's figures, per agency, and who may read them. */
import { ANONYMOUS, FINANCIAL, asPartner, withAuthorization } from '../support/partner-api';
import { useTestApp, type Agency } from '../support/test-app';
import { expectErrorBody } from '../support/error-body';
import { CREDIT_TYPES, DEBIT_TYPES, STATEMENT_TYPES } from '../../src/financial/ledger-rules';
import { addDays } from '../../src/financial/date-range';
import { daysFromToday, entry, money, postEntries, seededRandom, type EntrySeed } from './ledger-factory';

const world = useTestApp();

interface Summary {
  date: string;
  openingBalance: number;
  closingBalance: number;
  credits: number;
  debits: number;
}

describe('When an agency reads its balance', () => {
  test('then a new agency has everything at 0', async () => {
    const agency = await world.newAgency({ scopes: ['ri:financial:read'] });
    const response = await asPartner(world, agency).balance();
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body).toEqual({ balance: 0, credits: 0, debits: 0 });
  });

  test('then 200 random entries add up exactly (credits - debits, in cents)', async () => {
    const agency = await world.newAgency();
    const partner = asPartner(world, agency);
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
    await postEntries(world.db, agency.companyId, seeds);
    const response = await partner.balance();
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ balance: money(credits - debits), credits: money(credits), debits: money(debits) });
    expect(DEBIT_TYPES.length + CREDIT_TYPES.length).toBe(7);

    // The balance is today's closing balance, whatever range leads there.
    const summaries = await partner.dailySummaries(`startDate=${daysFromToday(-365)}&endDate=${daysFromToday(0)}`);
    expect(summaries.status).toBe(200);
    expect(summaries.body).toHaveLength(366);
    expect(summaries.body.at(-1).closingBalance).toBe(response.body.balance);
  });

  test('then a negative balance is reported as such, and an entry dated tomorrow is not counted yet', async () => {
    const agency = await world.newAgency();
    await postEntries(world.db, agency.companyId, [
      entry(daysFromToday(-3), 'charge_paid', 10_000n),
      entry(daysFromToday(0), 'fee', 25_050n),
      entry(daysFromToday(1), 'transfer_received', 99_900n),
    ]);
    const response = await asPartner(world, agency).balance();
    expect(response.body).toEqual({ balance: -150.5, credits: 100, debits: 250.5 });
  });
});

describe('When an agency lists daily summaries', () => {
  let agency: Agency;
  const partner = asPartner(world, () => agency);
  beforeAll(async () => {
    agency = await world.newAgency();
    await postEntries(world.db, agency.companyId, [
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
    const response = await partner.dailySummaries('startDate=2025-01-29&endDate=2025-02-04');
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
    const response = await partner.dailySummaries('startDate=2024-12-31&endDate=2024-12-31');
    expect(response.body).toEqual([{ date: '2024-12-31', openingBalance: 0, closingBalance: 0, credits: 0, debits: 0 }]);
  });

  test('then a range of exactly 366 days is accepted, and every closing equals the next opening', async () => {
    const response = await partner.dailySummaries('startDate=2024-06-01&endDate=2025-06-01');
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
    const own = await world.newAgency();
    await postEntries(world.db, own.companyId, [entry(daysFromToday(-1), 'charge_paid', 100n), entry(daysFromToday(0), 'fee', 30n)]);
    const response = await asPartner(world, own).dailySummaries(`startDate=${daysFromToday(-2)}&endDate=${daysFromToday(5)}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual([
      { date: daysFromToday(-2), openingBalance: 0, closingBalance: 0, credits: 0, debits: 0 },
      { date: daysFromToday(-1), openingBalance: 0, closingBalance: 1, credits: 1, debits: 0 },
      { date: daysFromToday(0), openingBalance: 1, closingBalance: 0.7, credits: 0, debits: 0.3 },
    ]);
  });

  test('then a range entirely in the future is an empty array', async () => {
    const response = await partner.dailySummaries(`startDate=${daysFromToday(1)}&endDate=${daysFromToday(30)}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual([]);
  });
});

describe('When two agencies have entries', () => {
  test('then each sees only its own, on every endpoint', async () => {
    const a = await world.newAgency();
    const b = await world.newAgency();
    const [asA, asB] = [asPartner(world, a), asPartner(world, b)];
    const day = daysFromToday(-1);
    await postEntries(world.db, a.companyId, [entry(day, 'charge_paid', 10_000n, 'A')]);
    await postEntries(world.db, b.companyId, [entry(day, 'fee', 777n, 'B'), entry(day, 'revenue_shared', 5n, 'B')]);

    expect((await asA.balance()).body).toEqual({ balance: 100, credits: 100, debits: 0 });
    expect((await asB.balance()).body).toEqual({ balance: -7.72, credits: 0.05, debits: 7.77 });

    const summariesA = await asA.dailySummaries(`startDate=${day}&endDate=${day}`);
    expect(summariesA.body).toEqual([{ date: day, openingBalance: 0, closingBalance: 100, credits: 100, debits: 0 }]);

    const entriesA = await asA.statementEntries(`startDate=${day}&endDate=${day}`);
    expect(entriesA.body._embedded.statementEntries.map((e: { description: string }) => e.description)).toEqual(['A']);
    const entriesB = await asB.statementEntries(`startDate=${day}&endDate=${day}`);
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
    const response = await asPartner(world, ANONYMOUS).request('get', `${FINANCIAL}/${path}`);
    expectErrorBody(response, 401, 'unauthorized');
    expect(response.headers['www-authenticate']).toBe('Bearer realm="rental-guarantee"');
  });

  test.each(paths)('then GET %s with an unknown token is 401 invalid_token', async (path) => {
    const response = await asPartner(world, withAuthorization('Bearer sbx_at_nope')).request('get', `${FINANCIAL}/${path}`);
    expectErrorBody(response, 401, 'unauthorized');
    expect(response.headers['www-authenticate']).toBe('Bearer realm="rental-guarantee", error="invalid_token"');
  });

  test.each(paths)('then GET %s with only the rental-insurance scopes is 403 insufficient_scope', async (path) => {
    const agency = await world.newAgency({ scopes: ['ri:rental-insurances:read', 'ri:rental-insurances:write'] });
    await postEntries(world.db, agency.companyId, [entry('2025-01-05', 'charge_paid', 100n)]);
    const response = await asPartner(world, agency).request('get', `${FINANCIAL}/${path}`);
    expectErrorBody(response, 403, 'insufficient_scope');
    expect(response.headers['www-authenticate']).toBe('Bearer realm="rental-guarantee", error="insufficient_scope", scope="ri:financial:read"');
    expect(JSON.stringify(response.body)).not.toContain('"balance"');
  });
});
