/**
 * The statement cache under Prisma's pg adapter (src/database/statement-cache.ts): with a pool of
 * one connection, every statement the API sends goes through the connection these tests inspect.
 */
import { Prisma } from '../../src/generated/prisma/client';
import { guaranteeBody } from '../support/factories';
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';

const world = useTestApp({ DATABASE_POOL_MAX: '1' }, { agencies: 1 });
const partner = asPartner(world);

interface Prepared {
  name: string;
  statement: string;
  executions: bigint;
}

async function preparedStatements(): Promise<Prepared[]> {
  // No parameters: sent with the simple protocol, so this statement itself is never named.
  return world.db.$queryRaw<Prepared[]>`SELECT name, statement, generic_plans + custom_plans AS executions FROM pg_prepared_statements`;
}

describe('When the API sends the same statements again on a connection', () => {
  test('then PostgreSQL keeps them prepared under a name and executes them without a new parse', async () => {
    const created = await partner.newGuarantee();
    for (let round = 0; round < 3; round++) expect((await partner.get(created.id)).status).toBe(200);
    const prepared = await preparedStatements();
    expect(prepared.every((statement) => /^s_[\w-]{32}$/.test(statement.name))).toBe(true);
    const reads = prepared.filter((statement) => statement.statement.includes('rental_insurances') && statement.executions >= 3n);
    expect(reads.length).toBeGreaterThan(0);
  });

  test('then a statement with a LIKE pattern is planned for each value, never kept', async () => {
    const named = await partner.newGuarantee({ tenant: { ...(guaranteeBody().tenant as object), name: 'Otávio Quintela' } });
    const found = await partner.list({ tenantName: 'quintela' });
    expect(found.status).toBe(200);
    expect(found.body._embedded.rentalInsurances.map((row: { id: number }) => row.id)).toContain(named.id);
    const prepared = await preparedStatements();
    expect(prepared.some((statement) => /\bLIKE\b/i.test(statement.statement))).toBe(false);
  });

  test('then a rolled-back write leaves the statements usable by the next one', async () => {
    const created = await partner.newGuarantee();
    const stale = await partner.patch(created.id, { externalId: 'CTR-STALE' }, { ifMatch: 'W/"7"' });
    expect(stale.status).toBe(412);
    const patched = await partner.patch(created.id, { externalId: 'CTR-FRESH' }, { ifMatch: 'W/"1"' });
    expect(patched.status).toBe(200);
    expect(patched.body.externalId).toBe('CTR-FRESH');
    expect((await partner.get(created.id)).body.externalId).toBe('CTR-FRESH');
  });

  test('then a connection keeps at most 100 statements, and later ones still run unnamed', async () => {
    for (let variant = 0; variant < 120; variant++) {
      const rows = await world.db.$queryRaw<Array<{ value: number }>>(Prisma.sql(['SELECT ', `::int + ${variant} AS value`], 1));
      expect(rows[0]!.value).toBe(1 + variant);
    }
    expect((await preparedStatements()).length).toBe(100);
  });
});
