/**
 * Chooses the PostgreSQL server: DATABASE_URL when set, otherwise an embedded server whose data
 * lives under the project (EMBEDDED_DB_DIR) and survives restarts.
 */
import { Client } from 'pg';
import type { Config } from '../config';
import { embeddedUrl, startEmbeddedServer } from './embedded-server';

export const EMBEDDED_DATABASE_NAME = 'rental_guarantee';

export interface DatabaseServer {
  url: string;
  embedded: boolean;
  stop(): Promise<void>;
}

export async function openDatabaseServer(config: Config, log: (line: string) => void): Promise<DatabaseServer> {
  if (config.DATABASE_URL) {
    return { url: config.DATABASE_URL, embedded: false, stop: async () => undefined };
  }
  // Another process of this project (a second service process, the admin tool) may already run
  // the embedded server on this data directory: share it rather than fail, and leave it running.
  const running = await reachable(embeddedUrl(config.EMBEDDED_DB_PORT, 'postgres'));
  const server = running
    ? { adminUrl: embeddedUrl(config.EMBEDDED_DB_PORT, 'postgres'), stop: async () => undefined }
    : await startEmbeddedServer({ dataDir: config.EMBEDDED_DB_DIR, port: config.EMBEDDED_DB_PORT });
  await ensureDatabase(server.adminUrl, EMBEDDED_DATABASE_NAME);
  log(`embedded PostgreSQL ${running ? 'already running' : 'started'} on 127.0.0.1:${config.EMBEDDED_DB_PORT}, data in ${config.EMBEDDED_DB_DIR}`);
  return { url: embeddedUrl(config.EMBEDDED_DB_PORT, EMBEDDED_DATABASE_NAME), embedded: true, stop: server.stop };
}

async function reachable(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

export async function ensureDatabase(adminUrl: string, name: string, template?: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) {
      const quoted = `"${name.replace(/"/g, '""')}"`;
      await client.query(template ? `CREATE DATABASE ${quoted} TEMPLATE "${template.replace(/"/g, '""')}"` : `CREATE DATABASE ${quoted}`);
    }
  } finally {
    await client.end();
  }
}
