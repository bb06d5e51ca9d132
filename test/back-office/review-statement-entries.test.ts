/** Staff post statement entries through the back-office API: signed by type, seen by the partner, idempotent, audited. */
import { expectErrorBody } from '../support/error-body';
import { newKey } from '../support/factories';
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { newStaff, opsClient, useStaff } from './ops-support';

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
