/** Staff post statement entries through the back-office API: signed by type, seen by the partner, idempotent, audited. */
import { expectErrorBody } from '../support/error-body';
import { newKey } from '../support/factories';
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { newStaff, opsClient, useStaff } from './ops-support';
import { entry, postEntries } from '../financial/ledger-factory';

const world = useTestApp();
const { ops, operator: staff } = useStaff(world, { name: 'Ana Revisora' });

describe('When staff post statement entries', () => {
  const entry = (companyId: string, overrides: Record<string, unknown> = {}) => ({
    companyId,
    date: '2026-11-21',
    type: 'fee',
    amount: 317.5,
    description: 'Tarifa de emissão',
    ...overrides,
  });

  test('then the sign comes from the type, the partner sees the entry, and the posting is audited', async () => {
    const target = await world.newAgency();
    const fee = await ops.post('/v1/statement-entries', entry(target.companyId));
    expect(fee.status).toBe(201);
    expect(fee.headers['idempotent-replay']).toBe('false');
    expect(fee.body).toEqual({
      id: expect.any(Number),
      companyId: target.companyId,
      date: '2026-11-21',
      description: 'Tarifa de emissão',
      amount: -317.5,
      type: 'fee',
    });
    const paid = await ops.post('/v1/statement-entries', entry(target.companyId, { type: 'charge_paid', amount: 1500.25, description: null }));
    expect(paid.body.amount).toBe(1500.25);
    const statement = await asPartner(world, target).statementEntries({ startDate: '2026-11-01', endDate: '2026-11-30' });
    expect(statement.body._embedded.statementEntries.map((row: { amount: number }) => row.amount).sort()).toEqual([-317.5, 1500.25]);
    const audit = await world.db.auditLogEntry.findMany({
      where: { companyId: target.companyId, action: 'statement_entry.posted' },
      orderBy: { id: 'asc' },
    });
    expect(audit.map((row) => row.actor)).toEqual(['staff:Ana Revisora', 'staff:Ana Revisora']);
    expect(audit[0]!.details).toMatchObject({
      entryId: String(fee.body.id),
      amount: '-317.50',
      type: 'fee',
      via: 'back-office-api',
      actorClientId: staff().clientId,
    });
  });

  test('then the same entry posted twice with one key is created once', async () => {
    const target = await world.newAgency();
    const key = newKey();
    const first = await ops.post('/v1/statement-entries', entry(target.companyId), key);
    const again = await ops.post('/v1/statement-entries', entry(target.companyId), key);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replay']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(await world.db.statementEntry.count({ where: { companyId: target.companyId } })).toBe(1);
    expectErrorBody(await ops.post('/v1/statement-entries', entry(target.companyId, { amount: 10 }), key), 400, 'idempotency_key_reused');
  });

  test('then a non-positive amount, an unknown agency or a missing scope is refused', async () => {
    const target = await world.newAgency();
    expectErrorBody(await ops.post('/v1/statement-entries', entry(target.companyId, { amount: 0 })), 400, 'validation_failed');
    expectErrorBody(await ops.post('/v1/statement-entries', entry(target.companyId, { amount: -5 })), 400, 'validation_failed');
    expectErrorBody(await ops.post('/v1/statement-entries', entry(target.companyId, { amount: 1.001 })), 400, 'validation_failed');
    const unknown = await ops.post('/v1/statement-entries', entry('no-such-agency'));
    expectErrorBody(unknown, 400, 'validation_failed');
    expect(unknown.body.details).toEqual(['companyId: no agency "no-such-agency"']);
    expectErrorBody(await ops.post('/v1/statement-entries', entry('back-office')), 400, 'validation_failed');
    const reviewer = await newStaff(world, { scopes: ['ops:guarantees:review'] });
    expectErrorBody(await opsClient(world, reviewer).post('/v1/statement-entries', entry(target.companyId)), 403, 'insufficient_scope');
    expect(await world.db.statementEntry.count({ where: { companyId: target.companyId } })).toBe(0);
  });
});

describe('When one day receives more maximal postings than a day total used to hold', () => {
  test('then the 101st entry of 999,999,999,999.99 is posted, and the balance and the day add up exactly', async () => {
    const target = await world.newAgency();
    const day = '2026-11-20';
    const maximal = 99_999_999_999_999n; // cents: the largest amount one entry may carry
    // 100 of them filled the former numeric(16,2) day total to its last cent; seeded through the posting service.
    await postEntries(
      world.db,
      target.companyId,
      Array.from({ length: 100 }, () => entry(day, 'charge_paid', maximal)),
    );
    const posted = await ops.post('/v1/statement-entries', {
      companyId: target.companyId,
      date: day,
      type: 'charge_paid',
      amount: 999999999999.99,
      description: 'The 101st',
    });
    expect(posted.status).toBe(201);
    expect(posted.body.amount).toBe(999999999999.99);
    const fee = await ops.post('/v1/statement-entries', { companyId: target.companyId, date: day, type: 'fee', amount: 0.01, description: null });
    expect(fee.status).toBe(201);

    const [totals] = await world.db.$queryRaw<Array<{ credits: string; debits: string }>>`
      SELECT credits::text AS credits, debits::text AS debits FROM ledger_daily_totals WHERE company_id = ${target.companyId} AND date = ${day}::date`;
    expect(totals).toEqual({ credits: '100999999999998.99', debits: '0.01' });
    const partner = asPartner(world, target);
    const balance = await partner.balance();
    expect(balance.status).toBe(200);
    // JSON numbers: the nearest double to each exact decimal, as a partner's parser reads it.
    expect(balance.body).toEqual({ balance: Number('100999999999998.98'), credits: Number('100999999999998.99'), debits: 0.01 });
    const summaries = await partner.dailySummaries({ startDate: day, endDate: day });
    expect(summaries.status).toBe(200);
    expect(summaries.body).toEqual([
      { date: day, openingBalance: 0, closingBalance: Number('100999999999998.98'), credits: Number('100999999999998.99'), debits: 0.01 },
    ]);
  });
});
