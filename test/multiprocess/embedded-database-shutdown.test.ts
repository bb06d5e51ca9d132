/**
 * SIGTERM on a real service process in the embedded-database mode (no DATABASE_URL: the process
 * starts its own PostgreSQL, here on its own data directory in a temporary folder and a free port).
 * The embedded server stops last: writes in flight at the signal finish with 2xx while PostgreSQL
 * keeps answering, then it stops and the process exits within the documented bound. Every write is
 * stored once: on the next start, each key replays its answer.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { createCredential } from '../../src/auth/credentials';
import { SCOPES } from '../../src/auth/scopes';
import { EMBEDDED_DATABASE_NAME } from '../../src/database/database-server';
import { embeddedUrl, isAlive } from '../../src/database/embedded-server';
import { createDatabaseClient, type Database } from '../../src/database/prisma-client';
import { guaranteeBody, newKey } from '../support/factories';
import { holdEveryWrite, waitForLockWaiters, type HeldLock } from '../support/row-lock';
import { bearerFor, call, freePort, startService, type FetchResult, type ServiceProcess } from '../support/service-process';
import { eventually } from '../support/wait-for';

jest.setTimeout(180_000);

const GRACE_MS = 5_000;
const COMPANY = 'embedded-shutdown-agency';
let folder: string;
let env: Record<string, string>;
const services: ServiceProcess[] = [];
const clients: Database[] = [];
let lock: HeldLock | undefined;

beforeAll(async () => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-embedded-shutdown-'));
  // PostgreSQL runs as the unprivileged `postgres` user when the tests run as root.
  fs.chmodSync(folder, 0o777);
  const port = await freePort();
  // An empty DATABASE_URL counts as unset (config.ts): the service starts its embedded server.
  env = { DATABASE_URL: '', EMBEDDED_DB_DIR: path.join(folder, 'pg'), EMBEDDED_DB_PORT: String(port), SHUTDOWN_GRACE_MS: String(GRACE_MS) };
});

afterAll(async () => {
  // SIGTERM, never SIGKILL: a killed service would leave its PostgreSQL running.
  for (const service of services) await service.kill('SIGTERM');
  // A test that failed while holding the lock: release it, or its client could not disconnect.
  lock?.release();
  await lock?.done.catch(() => undefined);
  // A client whose server went away in the middle of a transaction may never finish disconnecting.
  for (const db of clients) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([db.$disconnect().catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, 5_000)))]);
    clearTimeout(timer);
  }
  const pidFile = path.join(env['EMBEDDED_DB_DIR']!, 'postmaster.pid');
  const postmaster = fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]) : 0;
  if (isAlive(postmaster)) process.kill(postmaster, 'SIGINT');
  await eventually(() => !isAlive(postmaster), { everyMs: 100 });
  fs.rmSync(folder, { recursive: true, force: true });
});

async function start(): Promise<{ service: ServiceProcess; db: Database }> {
  const service = await startService('', env, 120_000);
  services.push(service);
  const db = createDatabaseClient(embeddedUrl(Number(env['EMBEDDED_DB_PORT']), EMBEDDED_DATABASE_NAME), { poolMax: 2 });
  clients.push(db);
  return { service, db };
}

test('SIGTERM during writes in the embedded-database mode: the writes finish 2xx, then PostgreSQL stops, then the process exits in time', async () => {
  const { service, db } = await start();
  const credential = await createCredential(db, 'sandbox', {
    companyId: COMPANY,
    displayName: 'Embedded ERP',
    scopes: [...SCOPES],
    createdBy: 'test',
  });
  const auth = await bearerFor(service.origin, credential);
  const writes = Array.from({ length: 8 }, () => ({ key: newKey(), body: guaranteeBody() }));
  const send = (origin: string, write: (typeof writes)[number]): Promise<FetchResult> =>
    call(origin, 'POST', '/v1/rental-insurances', { ...auth, 'Idempotency-Key': write.key }, write.body);

  // Every write waits on a lock of the test just before its commit: all 8 are in flight at the signal.
  lock = await holdEveryWrite({ db });
  const inFlight = writes.map((write) => send(service.origin, write));
  await waitForLockWaiters({ db }, writes.length);
  process.kill(service.pid, 'SIGTERM');
  // Long past the moment PostgreSQL used to stop (about 10 ms after the signal): it still answers.
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(service.alive()).toBe(true);
  expect(await db.$queryRaw`SELECT 1 AS up`).toEqual([{ up: 1 }]);
  lock.release();
  await lock.done;

  const answers = await Promise.all(inFlight);
  for (const answer of answers) {
    expect({ status: answer.status, networkError: answer.networkError }).toEqual({ status: 201, networkError: undefined });
    expect(answer.headers.get('connection')).toBe('close');
  }
  // It exits by itself once its work is done (a process that hung would time the test out; how long
  // a stop takes is not asserted: a loaded machine).
  expect(await service.exited).toBe(0);
  // The embedded server stopped with the process (a clean stop removes its pid file).
  expect(fs.existsSync(path.join(env['EMBEDDED_DB_DIR']!, 'postmaster.pid'))).toBe(false);
  const probe = new Client({ host: '127.0.0.1', port: Number(env['EMBEDDED_DB_PORT']), user: 'postgres', password: 'postgres' });
  await expect(probe.connect()).rejects.toThrow();

  // Started again on the same data: every write was stored once, and its key replays its answer.
  const again = await start();
  for (const [index, write] of writes.entries()) {
    const replayed = await send(again.service.origin, write);
    expect([replayed.status, replayed.headers.get('idempotent-replay')]).toEqual([201, 'true']);
    expect(replayed.text).toBe(answers[index]!.text);
  }
  expect(await again.db.rentalInsurance.count({ where: { companyId: COMPANY } })).toBe(writes.length);
});
