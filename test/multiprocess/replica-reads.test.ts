/**
 * Reads on the streaming replica (issue 24 item 3): a service process on a primary with a real
 * streaming replica (DATABASE_REPLICA_URL). The replica serves the lists and financial reads when
 * it has replayed every write committed before the read; a partner always reads its own writes,
 * also while the replica's replay is paused; a replica that is down costs only its reads.
 */
import { randomUUID } from 'node:crypto';
import { createCredential } from '../../src/auth/credentials';
import { SCOPES } from '../../src/auth/scopes';
import { migrateDatabase } from '../../src/database/migrate';
import { createDatabaseClient } from '../../src/database/prisma-client';
import { guaranteeBody } from '../support/factories';
import { bearerFor, call, startService, stopAllServices, type ServiceProcess } from '../support/service-process';
import { sql, startPostgresPair, type PostgresPair } from '../topology/postgres-pair';
import { waitFor } from '../support/wait-for';

jest.setTimeout(180_000);

let pair: PostgresPair;
let service: ServiceProcess;
let auth: Record<string, string>;

beforeAll(async () => {
  pair = await startPostgresPair();
  await sql(pair.primary.url('postgres'), 'CREATE DATABASE rg_replica');
  const primary = pair.primary.url('rg_replica');
  await migrateDatabase(primary);
  const db = createDatabaseClient(primary, { poolMax: 1 });
  const credential = await createCredential(db, 'sandbox', {
    companyId: 'replica-agency',
    displayName: 'Replica ERP',
    scopes: [...SCOPES],
    createdBy: 'test',
  });
  await db.$disconnect();
  service = await startService(primary, {
    DATABASE_REPLICA_URL: pair.replica.url('rg_replica'),
    DATABASE_REPLICA_MAX_LAG_MS: '200',
    LOG_LEVEL: 'warn',
  });
  auth = await bearerFor(service.origin, credential);
}, 120_000);

afterAll(async () => {
  await stopAllServices();
  await pair?.remove();
});

/** Index and sequential scans of rental_insurances on the replica: they grow only with reads it served. */
async function replicaScans(): Promise<number> {
  const rows = await sql<{ scans: string }>(
    pair.replica.url('rg_replica'),
    `SELECT coalesce(seq_scan, 0) + coalesce(idx_scan, 0) AS scans FROM pg_stat_user_tables WHERE relname = 'rental_insurances'`,
  );
  return Number(rows[0]?.scans ?? 0);
}

async function createAndList(): Promise<{ id: number; listed: number[]; balance: number }> {
  const created = await call(service.origin, 'POST', '/v1/rental-insurances', { ...auth, 'Idempotency-Key': randomUUID() }, guaranteeBody());
  expect(created.status).toBe(201);
  const list = await call(service.origin, 'GET', '/v1/rental-insurances?size=200', auth);
  expect(list.status).toBe(200);
  const balance = await call(service.origin, 'GET', '/v1/financial/balance', auth);
  const embedded = (list.body?.['_embedded'] as { rentalInsurances: Array<{ id: number }> }).rentalInsurances;
  return { id: created.body?.['id'] as number, listed: embedded.map((row) => row.id), balance: balance.status };
}

test('a list right after a create includes it, and the replica serves lists once it is current', async () => {
  const before = await replicaScans();
  for (let round = 0; round < 10; round++) {
    const { id, listed, balance } = await createAndList();
    expect(listed).toContain(id);
    expect(balance).toBe(200);
  }
  // Reads after the writes settled: the replica is current and serves them.
  await new Promise((resolve) => setTimeout(resolve, 300));
  for (let round = 0; round < 5; round++) expect((await call(service.origin, 'GET', '/v1/rental-insurances?size=5', auth)).status).toBe(200);
  // A backend that stays idle reports its statistics within PostgreSQL's idle flush interval (10 s).
  expect(await waitFor(replicaScans, (after) => after > before, { withinMs: 15_000, everyMs: 250 })).toBeGreaterThan(before);
});

test('with the replica paused behind a write, the partner still reads its write (from the primary)', async () => {
  await sql(pair.replica.url('postgres'), 'SELECT pg_wal_replay_pause()');
  try {
    for (let round = 0; round < 3; round++) {
      const { id, listed } = await createAndList();
      expect(listed).toContain(id);
    }
  } finally {
    await sql(pair.replica.url('postgres'), 'SELECT pg_wal_replay_resume()');
  }
});

test('with the replica down, reads are answered by the primary, nothing is refused', async () => {
  await pair.replica.stop();
  try {
    for (let round = 0; round < 3; round++) {
      const { id, listed, balance } = await createAndList();
      expect(listed).toContain(id);
      expect(balance).toBe(200);
    }
  } finally {
    await pair.replica.start();
  }
  // Back in service after its rest (3 s).
  await new Promise((resolve) => setTimeout(resolve, 3_500));
  const { id, listed } = await createAndList();
  expect(listed).toContain(id);
});
