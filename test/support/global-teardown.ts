import { Client } from 'pg';
import { isAlive, RUN_PREFIX, templateDatabase } from './test-database-server';

/** Drops this run's template; stops the embedded server it started unless another live run uses it. */
export default async function globalTeardown(): Promise<void> {
  const serverUrl = process.env.TEST_SERVER_URL;
  let otherRunsActive = false;
  if (serverUrl) {
    const admin = new Client({ connectionString: serverUrl });
    await admin.connect();
    try {
      await admin.query(`DROP DATABASE IF EXISTS "${templateDatabase(process.pid)}" WITH (FORCE)`);
      const { rows } = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE '${RUN_PREFIX}%_template'`);
      otherRunsActive = rows.some(({ datname }) => isAlive(Number(/^rg_test_(\d+)_/.exec(datname)?.[1])));
    } finally {
      await admin.end();
    }
  }
  const server = (globalThis as { __embeddedTestServer?: { stop(): Promise<void> } }).__embeddedTestServer;
  if (server && !otherRunsActive) await server.stop();
}
