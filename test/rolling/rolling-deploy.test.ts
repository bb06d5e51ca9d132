/**
 * A rolling deploy (issue 24 item 5; `make rolling-deploy-test`, run by .ci/run): the previous release
 * keeps serving on one database while this release starts beside it and applies its migrations
 * (expand, then contract: docs/deployment.md).
 *
 * The previous release is the commit before the newest migration, or ROLLING_BASE: it is
 * extracted with `git archive` into a temporary directory and built there (Prisma client and
 * TypeScript), on this checkout's node_modules when it pins the same dependencies, else on its own
 * (npm ci). It starts first on a fresh database (its own migrations), takes
 * load, then this release starts on the same database (applying the newer migrations) while the
 * load on the previous one goes on: every answer of the previous release stays a 2xx, and each
 * release reads what the other wrote.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCredential } from '../../src/auth/credentials';
import { createDatabaseClient } from '../../src/database/prisma-client';
import { guaranteeBody } from '../support/factories';
import { call } from '../support/service-process';
import { tokenFor } from '../topology/client';
import { createHost, type Host } from '../topology/hosts';
import { sql, startPostgresPair, type PostgresPair } from '../topology/postgres-pair';

jest.setTimeout(420_000);

const ROOT = path.join(__dirname, '..', '..');
const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT }).toString().trim();

/** Whether this checkout's node_modules serve `commit`: each dependency it pins is pinned alike here. */
function servedByThisCheckout(commit: string): boolean {
  const pinned = (packageJson: string): Record<string, string> => {
    const { dependencies, devDependencies, optionalDependencies } = JSON.parse(packageJson) as Record<string, Record<string, string> | undefined>;
    return { ...dependencies, ...devDependencies, ...optionalDependencies };
  };
  const now = pinned(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  return Object.entries(pinned(git('show', `${commit}:package.json`))).every(([name, version]) => now[name] === version);
}

/** The previous release: the commit before the newest migration (this release has one to apply while it serves), or ROLLING_BASE. */
function previousRelease(): string {
  if (process.env.ROLLING_BASE) return git('rev-parse', process.env.ROLLING_BASE);
  const migration = git('log', '-1', '--format=%H', '--', 'prisma/migrations');
  return git('rev-parse', `${migration}^`);
}

let pair: PostgresPair;
let previousDir: string;
let previous: Host;
let current: Host;

beforeAll(async () => {
  const base = previousRelease();
  previousDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-previous-'));
  execFileSync('bash', ['-c', `git archive ${base} | tar -x -C ${previousDir}`], { cwd: ROOT });
  // Usually the previous release pins what this one does, and runs on this node_modules (seconds);
  // otherwise it gets its own from its lockfile (a minute or more, from npm's cache when it can).
  if (servedByThisCheckout(base)) fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(previousDir, 'node_modules'));
  else execFileSync('npm', ['ci', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: previousDir, stdio: 'ignore' });
  const env = { ...process.env, DATABASE_URL: 'postgresql://generate@localhost/generate', CHECKPOINT_DISABLE: '1' };
  execFileSync(process.execPath, [path.join(previousDir, 'node_modules/prisma/build/index.js'), 'generate', '--no-hints'], {
    cwd: previousDir,
    env,
    stdio: 'ignore',
  });
  execFileSync(process.execPath, [path.join(previousDir, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: previousDir,
    stdio: 'ignore',
  });
  pair = await startPostgresPair();
  await sql(pair.primary.url('postgres'), 'CREATE DATABASE rg_rolling');
  const settings = { DATABASE_URL: pair.primary.url('rg_rolling'), ENVIRONMENT: 'sandbox', LOG_LEVEL: 'warn', SCHEDULER_INTERVAL_MS: '0' };
  previous = await createHost('previous', settings, previousDir);
  current = await createHost('current', settings);
}, 400_000);

afterAll(async () => {
  await previous?.crash();
  await current?.crash();
  await pair?.remove();
  if (previousDir) fs.rmSync(previousDir, { recursive: true, force: true });
});

test("the previous release keeps answering while this release starts and applies its migrations, and each reads the other's writes", async () => {
  await previous.start();
  const db = createDatabaseClient(pair.primary.url('rg_rolling'), { poolMax: 1 });
  const credential = await createCredential(db, 'sandbox', {
    companyId: 'rolling-agency',
    displayName: 'Rolling ERP',
    scopes: ['ri:rental-insurances:read', 'ri:rental-insurances:write'],
    createdBy: 'test',
  });
  await db.$disconnect();
  const auth = await tokenFor(previous.origin, credential);
  const statuses: number[] = [];
  const createdByPrevious: number[] = [];
  let running = true;
  const load = (async () => {
    while (running) {
      const created = await call(previous.origin, 'POST', '/v1/rental-insurances', { ...auth, 'Idempotency-Key': randomUUID() }, guaranteeBody());
      statuses.push(created.status);
      if (created.status === 201) createdByPrevious.push(created.body?.['id'] as number);
      statuses.push((await call(previous.origin, 'GET', '/v1/rental-insurances?size=5', auth)).status);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const migrationsBefore = await sql<{ count: string }>(pair.primary.url('rg_rolling'), 'SELECT count(*) AS count FROM _prisma_migrations');
  await current.start();
  const migrationsAfter = await sql<{ count: string }>(pair.primary.url('rg_rolling'), 'SELECT count(*) AS count FROM _prisma_migrations');
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  running = false;
  await load;

  const failed = statuses.filter((status) => status < 200 || status >= 300);
  expect({ answered: statuses.length > 10, failed }).toEqual({ answered: true, failed: [] });
  // This release applied migrations the previous one did not have, while the previous one served.
  expect(Number(migrationsAfter[0]!.count)).toBeGreaterThan(Number(migrationsBefore[0]!.count));
  // Each release reads the other's writes.
  const currentAuth = await tokenFor(current.origin, credential);
  expect((await call(current.origin, 'GET', `/v1/rental-insurances/${createdByPrevious.at(-1)}`, currentAuth)).status).toBe(200);
  const createdByCurrent = await call(
    current.origin,
    'POST',
    '/v1/rental-insurances',
    { ...currentAuth, 'Idempotency-Key': randomUUID() },
    guaranteeBody(),
  );
  expect(createdByCurrent.status).toBe(201);
  expect((await call(previous.origin, 'GET', `/v1/rental-insurances/${String(createdByCurrent.body?.['id'])}`, auth)).status).toBe(200);
  console.info(
    `rolling deploy: ${migrationsBefore[0]!.count} migrations by the previous release, ${migrationsAfter[0]!.count} after this one started; ${statuses.length} answers of the previous release`,
  );
});
