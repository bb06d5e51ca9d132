/**
 * Chooses the PostgreSQL server: DATABASE_URL when set, otherwise an embedded server whose data
 * lives under the project (EMBEDDED_DB_DIR) and survives restarts.
 */
import { Client } from 'pg';
import type { Config } from '../config';
import { startEmbeddedServer } from './embedded-server';

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
  const server = await startEmbeddedServer({ dataDir: config.EMBEDDED_DB_DIR, port: config.EMBEDDED_DB_PORT });
  await ensureDatabase(server.adminUrl, EMBEDDED_DATABASE_NAME);
  log(`embedded PostgreSQL listening on 127.0.0.1:${config.EMBEDDED_DB_PORT}, data in ${config.EMBEDDED_DB_DIR}`);
  return { url: server.urlFor(EMBEDDED_DATABASE_NAME), embedded: true, stop: server.stop };
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
