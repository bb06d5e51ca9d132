/**
 * The service behind a real transaction pooler (PgBouncer 1.18, `pool_mode = transaction`), as on a
 * managed PostgreSQL whose default connection string is its pooler (issue 24 item 1): requests go
 * through the pooler (DATABASE_URL) with every statement unnamed, migrations through the direct
 * connection (DATABASE_DIRECT_URL), and a migration is never run through the pooler.
 */
import { randomUUID } from 'node:crypto';
import { createCredential } from '../../src/auth/credentials';
import { SCOPES } from '../../src/auth/scopes';
import { migrateDatabase } from '../../src/database/migrate';
import { createDatabaseClient } from '../../src/database/prisma-client';
import { guaranteeBody } from '../support/factories';
import { startPgBouncer, type PgBouncer } from '../../scripts/topology/pgbouncer';
import { startRestartablePostgres, type RestartablePostgres } from '../support/restartable-postgres';
import { bearerFor, call, startService, stopAllServices } from '../support/service-process';

jest.setTimeout(180_000);

let postgres: RestartablePostgres;
let bouncer: PgBouncer;
let direct: string;
let pooled: string;

beforeAll(async () => {
  postgres = await startRestartablePostgres();
  direct = await postgres.createDatabase('rg_pooler');
  bouncer = await startPgBouncer(direct, 4);
  pooled = bouncer.url('rg_pooler');
}, 120_000);

afterAll(async () => {
  await stopAllServices();
  await bouncer?.stop();
  await postgres?.remove();
});

test('a migration through the transaction pooler is refused before it takes any lock; through the direct connection it applies', async () => {
  await expect(migrateDatabase(pooled)).rejects.toThrow(/reaches a transaction pooler/);
  // Nothing was applied through the pooler, and no advisory lock was left on a pooled server connection.
  const db = createDatabaseClient(direct, { poolMax: 1 });
  try {
    const locks = await db.$queryRaw<Array<{ count: bigint }>>`SELECT count(*) AS count FROM pg_locks WHERE locktype = 'advisory'`;
    expect(locks[0]!.count).toBe(0n);
  } finally {
    await db.$disconnect();
  }
  await migrateDatabase(direct);
});

test('a service on the pooler alone (no DATABASE_DIRECT_URL) refuses to start, naming the setting', async () => {
  await expect(startService(pooled, { DATABASE_DIRECT_URL: '' }, 60_000)).rejects.toThrow(/DATABASE_DIRECT_URL/);
});

test('behind the pooler, concurrent creates and reads all succeed: no statement is named', async () => {
  await migrateDatabase(direct); // applied already when the tests run in order
  const db = createDatabaseClient(direct, { poolMax: 1 });
  const credential = await createCredential(db, 'sandbox', {
    companyId: 'pooled-agency',
    displayName: 'Pooled ERP',
    scopes: [...SCOPES],
    createdBy: 'test',
  });
  await db.$disconnect();
  // Two processes of 6 connections each share the pooler's 4 server connections.
  const services = await Promise.all(
    [0, 1].map(() => startService(pooled, { DATABASE_DIRECT_URL: direct, DATABASE_POOL_MAX: '6', TOKEN_CACHE_SIZE: '100' })),
  );
  const auth = await bearerFor(services[0]!.origin, credential);
  const statuses: Record<string, number> = {};
  const count = (label: string) => (statuses[label] = (statuses[label] ?? 0) + 1);
  await Promise.all(
    Array.from({ length: 8 }, async (_, lane) => {
      const origin = services[lane % 2]!.origin;
      for (let round = 0; round < 10; round++) {
        const created = await call(origin, 'POST', '/v1/rental-insurances', { ...auth, 'Idempotency-Key': randomUUID() }, guaranteeBody());
        count(`create ${created.status} ${String(created.body?.['code'] ?? '')}`.trim());
        const read = await call(origin, 'GET', `/v1/rental-insurances/${String(created.body?.['id'])}`, auth);
        count(`get ${read.status}`);
        const list = await call(origin, 'GET', '/v1/rental-insurances?size=5', auth);
        count(`list ${list.status}`);
      }
    }),
  );
  expect(statuses).toEqual({ 'create 201': 80, 'get 200': 80, 'list 200': 80 });
});
