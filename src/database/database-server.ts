/**
 * Chooses the PostgreSQL server: DATABASE_URL when set, otherwise an embedded server whose data
 * lives under the project (EMBEDDED_DB_DIR) and survives restarts.
 */
import type { Config } from '../config';
import { createDatabaseClient } from './prisma-client';
import { embeddedUrl, startEmbeddedServer } from './embedded-server';

export const EMBEDDED_DATABASE_NAME = 'rental_guarantee';

export interface DatabaseServer {
  /** What requests use: the database, or a transaction pooler in front of it. */
  url: string;
  /** A session connection: migrations, LISTEN, the job queue (DATABASE_DIRECT_URL, else `url`). */
  directUrl: string;
  embedded: boolean;
  stop(): Promise<void>;
}

export async function openDatabaseServer(config: Config, log: (line: string) => void): Promise<DatabaseServer> {
  if (config.DATABASE_URL) {
    return { url: config.DATABASE_URL, directUrl: config.DATABASE_DIRECT_URL ?? config.DATABASE_URL, embedded: false, stop: async () => undefined };
  }
  // Another process of this project (a second service process, the admin tool) may already run
  // the embedded server on this data directory: share it rather than fail, and leave it running.
  const running = await reachable(embeddedUrl(config.EMBEDDED_DB_PORT, 'postgres'));
  const server = running
    ? { adminUrl: embeddedUrl(config.EMBEDDED_DB_PORT, 'postgres'), stop: async () => undefined }
    : await startEmbeddedServer({ dataDir: config.EMBEDDED_DB_DIR, port: config.EMBEDDED_DB_PORT });
  await ensureDatabase(server.adminUrl, EMBEDDED_DATABASE_NAME);
  log(`embedded PostgreSQL ${running ? 'already running' : 'started'} on 127.0.0.1:${config.EMBEDDED_DB_PORT}, data in ${config.EMBEDDED_DB_DIR}`);
  const url = embeddedUrl(config.EMBEDDED_DB_PORT, EMBEDDED_DATABASE_NAME);
  return { url, directUrl: url, embedded: true, stop: server.stop };
}

/** A short-lived Prisma client on another database of the server (the `postgres` maintenance database). */
async function withClient<T>(url: string, work: (db: ReturnType<typeof createDatabaseClient>) => Promise<T>): Promise<T> {
  const db = createDatabaseClient(url, { poolMax: 1, poolWaitMs: 1000 });
  try {
    return await work(db);
  } finally {
    await db.$disconnect();
  }
}

async function reachable(url: string): Promise<boolean> {
  return withClient(url, async (db) => {
    await db.$queryRaw`SELECT 1`;
    return true;
  }).catch(() => false);
}

export async function ensureDatabase(adminUrl: string, name: string, template?: string): Promise<void> {
  await withClient(adminUrl, async (db) => {
    const exists = await db.$queryRaw<unknown[]>`SELECT 1 FROM pg_database WHERE datname = ${name}`;
    if (exists.length > 0) return;
    // CREATE DATABASE takes identifiers, which no statement parameter can carry: quoted here.
    const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;
    await db.$executeRawUnsafe(template ? `CREATE DATABASE ${quote(name)} TEMPLATE ${quote(template)}` : `CREATE DATABASE ${quote(name)}`);
  });
}
