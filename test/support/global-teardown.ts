import { Client } from 'pg';
import { templateDatabase } from './test-database-server';

export default async function globalTeardown(): Promise<void> {
  const serverUrl = process.env.TEST_SERVER_URL;
  if (serverUrl) {
    const admin = new Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${templateDatabase(process.pid)}" WITH (FORCE)`).finally(() => admin.end());
  }
  const server = (globalThis as { __embeddedTestServer?: { stop(): Promise<void> } }).__embeddedTestServer;
  if (server) await server.stop();
}
