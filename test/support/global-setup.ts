/** Once per test run: start the database server and build the migrated template database. */
import { Client } from 'pg';
import { startEmbeddedServer } from '../../src/database/embedded-server';
import { migrateDatabase } from '../../src/database/migrate';
import { databaseUrl, EMBEDDED_TEST_DIR, EMBEDDED_TEST_PORT, externalServerUrl, TEMPLATE_DATABASE } from './test-database-server';

export default async function globalSetup(): Promise<void> {
  let serverUrl = externalServerUrl();
  if (!serverUrl) {
    const server = await startEmbeddedServer({ dataDir: EMBEDDED_TEST_DIR, port: EMBEDDED_TEST_PORT });
    (globalThis as { __embeddedTestServer?: unknown }).__embeddedTestServer = server;
    serverUrl = server.adminUrl;
  }
  process.env.TEST_SERVER_URL = serverUrl;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    // Databases left by an interrupted run would pile up; they are all disposable.
    const leftovers = await admin.query(`SELECT datname FROM pg_database WHERE datname LIKE 'rg_test_%'`);
    for (const row of leftovers.rows as Array<{ datname: string }>) {
      await admin.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`);
    }
    await admin.query(`CREATE DATABASE "${TEMPLATE_DATABASE}"`);
  } finally {
    await admin.end();
  }
  await migrateDatabase(databaseUrl(serverUrl, TEMPLATE_DATABASE));
}
