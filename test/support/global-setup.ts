/**
 * Once per test run: make sure the database server runs and build this run's migrated template.
 * Database names carry the run's process id, so concurrent runs on one server never touch each
 * other's databases, and those of runs that died are dropped.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { embeddedUrl, startEmbeddedServer } from '../../src/database/embedded-server';
import { migrateDatabase } from '../../src/database/migrate';
import { databaseUrl, EMBEDDED_TEST_DIR, EMBEDDED_TEST_PORT, externalServerUrl, isAlive, RUN_PREFIX, templateDatabase } from './test-database-server';

export default async function globalSetup(): Promise<void> {
  // Issue 37: the console's pages, served by every test app (dist/console/).
  execFileSync(process.execPath, [path.join(__dirname, '..', '..', 'scripts', 'build-console.mjs')], { stdio: 'ignore' });
  const serverUrl = externalServerUrl() ?? (await embeddedServerUrl());
  process.env.TEST_SERVER_URL = serverUrl;
  process.env.TEST_RUN_ID = String(process.pid);
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await dropDatabasesOfDeadRuns(admin);
    await admin.query(`CREATE DATABASE "${templateDatabase(process.pid)}"`);
  } finally {
    await admin.end();
  }
  await migrateDatabase(databaseUrl(serverUrl, templateDatabase(process.pid)));
}

/** Reuses an embedded test server that another run already started; otherwise starts one. */
async function embeddedServerUrl(): Promise<string> {
  const url = embeddedUrl(EMBEDDED_TEST_PORT, 'postgres');
  const probe = new Client({ connectionString: url });
  try {
    await probe.connect();
    await probe.end();
    return url;
  } catch {
    const server = await startEmbeddedServer({ dataDir: EMBEDDED_TEST_DIR, port: EMBEDDED_TEST_PORT });
    (globalThis as { __embeddedTestServer?: unknown }).__embeddedTestServer = server;
    return server.adminUrl;
  }
}

async function dropDatabasesOfDeadRuns(admin: Client): Promise<void> {
  const { rows } = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE '${RUN_PREFIX}%'`);
  for (const { datname } of rows) {
    const pid = Number(/^rg_test_(\d+)_/.exec(datname)?.[1]);
    if (!isAlive(pid)) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  }
}
