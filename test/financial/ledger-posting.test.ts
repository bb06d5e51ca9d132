/** postStatementEntry: the sign rule, refusals, the day totals kept in the caller's transaction, append-only. */
import { asPartner } from '../support/partner-api';
import { useTestApp, type Agency } from '../support/test-app';
import { postStatementEntry } from '../../src/financial/ledger-service';
import { inUnitOfWork } from '../../src/database/unit-of-work';
import { CREDIT_TYPES, DEBIT_TYPES } from '../../src/financial/ledger-rules';
import { ValidationFailed } from '../../src/errors';
import type { StatementType } from '../../src/generated/prisma/client';
import { daysFromToday, entry, postEntries } from './ledger-factory';

const world = useTestApp();

const dayTotals = (companyId: string) =>
  world.db.$queryRaw<Array<{ date: string; credits: string; debits: string }>>`
    SELECT to_char(date, 'YYYY-MM-DD') AS date, credits::text AS credits, debits::text AS debits
    FROM ledger_daily_totals WHERE company_id = ${companyId} ORDER BY date`;

/** The day totals recomputed from the entries themselves: what the maintained table must equal. */
const dayTotalsFromEntries = (companyId: string) =>
  world.db.$queryRaw<Array<{ date: string; credits: string; debits: string }>>`
    SELECT to_char(date, 'YYYY-MM-DD') AS date,
           COALESCE(SUM(amount) FILTER (WHERE amount > 0), 0)::numeric(16,2)::text AS credits,
           COALESCE(-SUM(amount) FILTER (WHERE amount < 0), 0)::numeric(16,2)::text AS debits
    FROM statement_entries WHERE company_id = ${companyId} GROUP BY date ORDER BY date`;

describe('When an entry is posted', () => {
  let agency: Agency;
  beforeAll(async () => {
    agency = await world.newAgency();
  });

  test.each(CREDIT_TYPES.map((type) => [type]))('then a %s entry is stored as a positive credit', async (type) => {
    const [row] = await postEntries(world.db, agency.companyId, [entry(daysFromToday(-1), type, 12345n, `credit ${type}`)]);
    expect(row!.amount.toFixed(2)).toBe('123.45');
    expect(row!.type).toBe(type);
  });

  test.each(DEBIT_TYPES.map((type) => [type]))('then a %s entry is stored as a negative debit', async (type) => {
    const [row] = await postEntries(world.db, agency.companyId, [entry(daysFromToday(-1), type, 12345n, `debit ${type}`)]);
    expect(row!.amount.toFixed(2)).toBe('-123.45');
  });

  test('then every type is either a credit or a debit, and the API shows the sign', async () => {
    const all = [...CREDIT_TYPES, ...DEBIT_TYPES];
    expect(new Set(all).size).toBe(7);
    const own = await world.newAgency();
    const day = daysFromToday(-2);
    await postEntries(
      world.db,
      own.companyId,
      all.map((type) => entry(day, type, 1n)),
    );
    const response = await asPartner(world, own).statementEntries({ startDate: day, endDate: day });
    expect(response.status).toBe(200);
    const byType = Object.fromEntries(
      (response.body._embedded.statementEntries as Array<{ type: StatementType; amount: number }>).map((e) => [e.type, e.amount]),
    );
    expect(byType).toEqual({
      charge_paid: 0.01,
      revenue_shared: 0.01,
      transfer_refunded: 0.01,
      transfer_received: 0.01,
      charge_refunded: -0.01,
      fee: -0.01,
      transfer_sent: -0.01,
    });
  });

  test('then the returned row is the stored row, with description and guarantee link', async () => {
    const [row] = await postEntries(world.db, agency.companyId, [
      { date: '2025-03-04', type: 'fee', amountCents: 31750n, description: 'Tarifa de emissão - garantia 1045', rentalInsuranceId: 1045n },
    ]);
    const stored = await world.db.statementEntry.findUniqueOrThrow({ where: { id: row!.id } });
    expect(row).toEqual(stored);
    expect(stored).toMatchObject({
      companyId: agency.companyId,
      description: 'Tarifa de emissão - garantia 1045',
      rentalInsuranceId: 1045n,
      type: 'fee',
    });
    expect(stored.date.toISOString()).toBe('2025-03-04T00:00:00.000Z');
    expect(stored.amount.toFixed(2)).toBe('-317.50');
  });

  test('then the largest amount the column holds is stored exactly', async () => {
    const [row] = await postEntries(world.db, agency.companyId, [entry('2025-03-05', 'charge_paid', 99_999_999_999_999n)]);
    expect(row!.amount.toFixed(2)).toBe('999999999999.99');
  });

  test('then the day totals (credits and debits as absolute sums) are kept equal to the entries', async () => {
    const own = await world.newAgency();
    await postEntries(world.db, own.companyId, [
      entry('2025-05-01', 'charge_paid', 1000n),
      entry('2025-05-01', 'fee', 250n),
      entry('2025-05-01', 'revenue_shared', 5n),
      entry('2025-05-03', 'transfer_sent', 999n),
    ]);
    await postEntries(world.db, own.companyId, [entry('2025-05-01', 'charge_refunded', 1n)]);
    expect(await dayTotals(own.companyId)).toEqual([
      { date: '2025-05-01', credits: '10.05', debits: '2.51' },
      { date: '2025-05-03', credits: '0.00', debits: '9.99' },
    ]);
    expect(await dayTotals(own.companyId)).toEqual(await dayTotalsFromEntries(own.companyId));
  });
});

describe('When the caller rolls its transaction back', () => {
  test('then neither the entry nor its day totals remain', async () => {
    const agency = await world.newAgency();
    await postEntries(world.db, agency.companyId, [entry('2025-06-10', 'charge_paid', 100n)]);
    await expect(
      inUnitOfWork(world.db, async (unit) => {
        await postStatementEntry(unit, {
          companyId: agency.companyId,
          date: '2025-06-10',
          description: null,
          type: 'charge_paid',
          amountCents: 700n,
        });
        await postStatementEntry(unit, { companyId: agency.companyId, date: '2025-06-11', description: null, type: 'fee', amountCents: 300n });
        await unit.flush(); // the events too are written, then rolled back
        throw new Error('caller failed after posting');
      }),
    ).rejects.toThrow('caller failed after posting');
    expect(await world.db.statementEntry.count({ where: { companyId: agency.companyId } })).toBe(1);
    expect(await dayTotals(agency.companyId)).toEqual([{ date: '2025-06-10', credits: '1.00', debits: '0.00' }]);
  });
});

describe('When many transactions post to the same company and day at once', () => {
  test('then no increment of the day totals is lost', async () => {
    const agency = await world.newAgency();
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        postEntries(world.db, agency.companyId, [entry('2025-07-01', i % 2 ? 'fee' : 'charge_paid', BigInt(i + 1))]),
      ),
    );
    // charge_paid: 1+3+...+19 = 100 cents; fee: 2+4+...+20 = 110 cents.
    expect(await dayTotals(agency.companyId)).toEqual([{ date: '2025-07-01', credits: '1.00', debits: '1.10' }]);
  });
});

describe('When an entry is invalid', () => {
  let companyId: string;
  beforeAll(async () => {
    companyId = (await world.newAgency()).companyId;
  });
  const post = (overrides: Record<string, unknown>) =>
    inUnitOfWork(world.db, (unit) =>
      postStatementEntry(unit, { companyId, date: '2025-08-01', description: null, type: 'fee', amountCents: 100n, ...overrides } as never),
    );

  test.each([
    ['a zero amount', { amountCents: 0n }, /amountCents: must be greater than 0/],
    ['a negative amount', { amountCents: -100n }, /amountCents: must be greater than 0/],
    ['an amount beyond NUMERIC(14,2)', { amountCents: 100_000_000_000_000n }, /amountCents: must be at most/],
    ['a number instead of bigint cents', { amountCents: 100 }, /amountCents: must be a bigint/],
    ['an impossible date', { date: '2025-02-29' }, /date: must be a date/],
    ['a date with a time', { date: '2025-08-01T10:00:00Z' }, /date: must be a date/],
    ['an unknown type', { type: 'bonus' }, /type: unknown statement type bonus/],
    ['an empty company', { companyId: ' ' }, /companyId: is required/],
  ])('then %s is refused and nothing is stored', async (_name, overrides, detail) => {
    const error = await post(overrides).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationFailed);
    expect((error as ValidationFailed).details!.join('\n')).toMatch(detail);
    expect(await world.db.statementEntry.count({ where: { companyId } })).toBe(0);
    expect(await dayTotals(companyId)).toEqual([]);
  });
});

describe('When anything tries to change the ledger', () => {
  test('then the database refuses updates and deletes of entries (corrections are new entries)', async () => {
    const agency = await world.newAgency();
    const [row] = await postEntries(world.db, agency.companyId, [entry('2025-09-01', 'fee', 500n)]);
    await expect(world.db.statementEntry.update({ where: { id: row!.id }, data: { description: 'changed' } })).rejects.toThrow(/append-only/);
    await expect(world.db.statementEntry.delete({ where: { id: row!.id } })).rejects.toThrow(/append-only/);
    await expect(world.db.$executeRaw`UPDATE statement_entries SET amount = 5 WHERE id = ${row!.id}`).rejects.toThrow(/append-only/);
    expect((await world.db.statementEntry.findUniqueOrThrow({ where: { id: row!.id } })).amount.toFixed(2)).toBe('-5.00');
  });

  test('then an amount whose sign contradicts its type cannot be inserted even by hand', async () => {
    const agency = await world.newAgency();
    await expect(
      world.db.$executeRaw`INSERT INTO statement_entries (company_id, date, amount, type) VALUES (${agency.companyId}, '2025-09-01', 5, 'fee')`,
    ).rejects.toThrow(/statement_entries_amount_sign_check/);
    await expect(
      world.db
        .$executeRaw`INSERT INTO statement_entries (company_id, date, amount, type) VALUES (${agency.companyId}, '2025-09-01', 0, 'charge_paid')`,
    ).rejects.toThrow(/statement_entries_amount_sign_check/);
  });
});
