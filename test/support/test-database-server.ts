/**
 * The PostgreSQL server of a test run: TEST_DATABASE_URL (or DATABASE_URL) when set, otherwise an
 * embedded server whose data directory is kept under .data/ between runs.
 * Databases are created on it from a migrated template, one per test file.
 */
export const RUN_PREFIX = 'rg_test_';
/** Databases of one run are named rg_test_<pid of the jest process>_... */
export const templateDatabase = (runId: number | string) => `${RUN_PREFIX}${runId}_template`;
export const EMBEDDED_TEST_PORT = Number(process.env.TEST_EMBEDDED_DB_PORT ?? 54339);
export const EMBEDDED_TEST_DIR = process.env.TEST_EMBEDDED_DB_DIR ?? '.data/test-postgres';

export function externalServerUrl(): string | undefined {
  return process.env.TEST_DATABASE_URL || process.env.DATABASE_URL || undefined;
}

/** The URL of `database` on the same server as `serverUrl`. */
export function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Whether the process of a test run (named in its databases) is still running. */
export { isAlive } from '../../src/database/embedded-server';
