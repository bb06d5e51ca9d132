/**
 * Applies pending migrations of prisma/migrations with Prisma's own `migrate deploy`, run as a
 * child process so that the service uses exactly the migration history that the CLI manages.
 * `migrate deploy` takes an advisory lock, so several processes starting at once are safe. When
 * every migration of this build is applied already (the usual start of a process, and every run of
 * the admin tool), that child process is spared: it loads Prisma's CLI and its WebAssembly engine,
 * seconds of CPU for nothing to do. A migration pending, failed or rolled back still goes to Prisma.
 * Then the job queue is installed or upgraded (src/job-queue/queue-install.ts): writes queue delivery
 * jobs in their own statement, so it must exist before any write.
 *
 * `databaseUrl` is the session connection (DATABASE_DIRECT_URL, else DATABASE_URL): a migration never
 * runs through a transaction pooler, whose pooled server connection would keep Prisma's advisory
 * lock after the client left (session-check.ts refuses one first).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { PROJECT_ROOT } from '../project-root';
import { assertSessionConnection } from './session-check';
import { installDeliveryQueue } from '../job-queue/queue-install';

const run = promisify(execFile);

/** The migrations of this build (the folders of prisma/migrations). */
export function knownMigrations(root = PROJECT_ROOT): string[] {
  const folder = path.join(root, 'prisma', 'migrations');
  return fs
    .readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
}

/** Whether every migration of this build is applied (finished, not rolled back); false when unknown (no history table yet). */
async function allApplied(databaseUrl: string, migrations: string[]): Promise<boolean> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'migration-check' });
  try {
    await client.connect();
    const { rows } = await client.query<{ applied: number }>(
      `SELECT count(*)::int AS applied FROM _prisma_migrations
       WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL AND migration_name = ANY($1)`,
      [migrations],
    );
    return rows[0]?.applied === migrations.length;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** `timeoutMs`: how long `migrate deploy` may take (an index built over a bench's tens of millions of rows takes minutes). */
export async function migrateDatabase(databaseUrl: string, { timeoutMs = 120_000 }: { timeoutMs?: number } = {}): Promise<void> {
  await assertSessionConnection(databaseUrl);
  if (!(await allApplied(databaseUrl, knownMigrations()))) await deployMigrations(databaseUrl, timeoutMs);
  try {
    await installDeliveryQueue(databaseUrl);
  } catch (error) {
    // The message of a connection error may quote the URL: say what failed, not how.
    // eslint-disable-next-line preserve-caught-error
    throw new Error(`Installing the job queue's schema failed: ${redact(String((error as Error).message), databaseUrl)}`);
  }
}

async function deployMigrations(databaseUrl: string, timeoutMs: number): Promise<void> {
  const cli = require.resolve('prisma/build/index.js', { paths: [PROJECT_ROOT] });
  try {
    await run(process.execPath, [cli, 'migrate', 'deploy'], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl, CHECKPOINT_DISABLE: '1', PRISMA_HIDE_UPDATE_MESSAGE: '1' },
      timeout: timeoutMs,
    });
  } catch (error) {
    const output = (error as { stdout?: string; stderr?: string }).stdout ?? '';
    const stderr = (error as { stderr?: string }).stderr ?? '';
    // The database URL may hold a password: never echo it, nor chain the error that holds it.
    // eslint-disable-next-line preserve-caught-error
    throw new Error(`Database migration failed:\n${redact(output + stderr, databaseUrl)}`);
  }
}

function redact(text: string, databaseUrl: string): string {
  return text.split(databaseUrl).join('<DATABASE_URL>');
}
