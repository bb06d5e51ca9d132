/**
 * A page of statement entries is read with tagged raw SQL through the driver adapter
 * (src/financial/ledger-repository.ts, `listEntries`) and cast to the model's type without the
 * compiler checking it. Here a page equals what Prisma's model API reads for the same entries,
 * value by value and type by type (bigint ids, Decimal amounts, dates as UTC midnight, the type
 * enum, null descriptions and guarantees), with and without a type filter, and its total is theirs.
 */
import { listEntries } from '../../src/financial/ledger-repository';
import type { StatementType } from '../../src/generated/prisma/client';
import { useTestApp } from '../support/test-app';
import { entry, postEntries } from './ledger-factory';

const world = useTestApp({ SCHEDULER_INTERVAL_MS: '0' });

describe("When a page of an agency's statement entries is read", () => {
  const range = { startDate: '2025-03-01', endDate: '2025-03-31' };
  let companyId: string;
  beforeAll(async () => {
    companyId = (await world.newAgency()).companyId;
    await postEntries(world.db, companyId, [
      entry('2025-03-01', 'charge_paid', 150_000n, 'Pagamento de março'),
      entry('2025-03-15', 'fee', 1_234n),
      entry('2025-03-15', 'charge_refunded', 99n, 'Estorno parcial — ação nº 7'),
      entry('2025-03-31', 'charge_paid', 1n),
      entry('2025-04-01', 'charge_paid', 500n, 'outside the range'),
    ]);
  });

  const modelPage = (types: StatementType[], skip: number, take: number) =>
    world.db.statementEntry.findMany({
      where: {
        companyId,
        date: { gte: new Date(`${range.startDate}T00:00:00Z`), lte: new Date(`${range.endDate}T00:00:00Z`) },
        ...(types.length > 0 ? { type: { in: types } } : {}),
      },
      orderBy: [{ date: 'desc' }, { id: 'desc' }],
      skip,
      take,
    });

  test('then every entry of the range, newest first, is exactly what the model API reads', async () => {
    const page = await listEntries(world.db, companyId, { ...range, types: [] }, { offset: 0, size: 10 });
    const model = await modelPage([], 0, 10);
    expect(model).toHaveLength(4);
    expect(page).toStrictEqual({ rows: model, total: 4 });
  });

  test('then a type filter and a later page read the same rows as the model API', async () => {
    const page = await listEntries(world.db, companyId, { ...range, types: ['charge_paid', 'charge_refunded'] }, { offset: 1, size: 1 });
    expect(page).toStrictEqual({ rows: await modelPage(['charge_paid', 'charge_refunded'], 1, 1), total: 3 });
  });

  test('then a page past the end is empty with the total', async () => {
    expect(await listEntries(world.db, companyId, { ...range, types: ['fee'] }, { offset: 1, size: 5 })).toStrictEqual({ rows: [], total: 1 });
  });
});
