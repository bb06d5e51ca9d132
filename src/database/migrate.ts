/**
 * Applies pending migrations of prisma/migrations with Prisma's own `migrate deploy`, run as a
 * child process so that the service uses exactly the migration history that the CLI manages.
 * `migrate deploy` takes an advisory lock, so several processes starting at once are safe.
 * Then the job queue is installed or upgraded (src/webhooks/queue-install.ts): writes queue delivery
 * jobs in their own statement, so it must exist before any write.
 *
 * `databaseUrl` is the session connection (DATABASE_DIRECT_URL, else DATABASE_URL): a migration never
 * runs through a transaction pooler, whose pooled server connection would keep Prisma's advisory
 * lock after the client left (session-check.ts refuses one first).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../project-root';
import { assertSessionConnection } from './session-check';
import { installDeliveryQueue } from '../webhooks/queue-install';

const run = promisify(execFile);

/** `timeoutMs`: how long `migrate deploy` may take (an index built over a bench's tens of millions of rows takes minutes). */
export async function migrateDatabase(databaseUrl: string, { timeoutMs = 120_000 }: { timeoutMs?: number } = {}): Promise<void> {
  await assertSessionConnection(databaseUrl);
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
  try {
    await installDeliveryQueue(databaseUrl);
  } catch (error) {
    // The message of a connection error may quote the URL: say what failed, not how.
    // eslint-disable-next-line preserve-caught-error
    throw new Error(`Installing the job queue's schema failed: ${redact(String((error as Error).message), databaseUrl)}`);
  }
}

function redact(text: string, databaseUrl: string): string {
  return text.split(databaseUrl).join('<DATABASE_URL>');
}
