/**
 * Prisma CLI configuration (only the CLI loads this file; the service never does).
 *
 * Prisma 6.19 downloads native engines unless it runs its WebAssembly schema engine through a
 * driver adapter, and this machine cannot reach Prisma's binary host: hence `engine: 'js'` and
 * the pg adapter. See shared/notes/toolchain.md.
 */
import { defineConfig } from 'prisma/config';
import { PrismaPg } from '@prisma/adapter-pg';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const pgResult = require('pg/lib/result.js');

// prisma/orm#27403: the adapter cannot deserialise columns of type `name` (OID 19) and `"char"`
// (OID 18) that the migration engine reads from the catalog. Presenting them as `text` (OID 25)
// before the adapter sees the field list fixes `migrate deploy` and `migrate status`.
const originalAddFields = pgResult.prototype.addFields;
pgResult.prototype.addFields = function addFields(fieldDescriptions: Array<{ dataTypeID: number }>) {
  for (const field of fieldDescriptions) {
    if (field.dataTypeID === 18 || field.dataTypeID === 19) field.dataTypeID = 25;
  }
  return originalAddFields.call(this, fieldDescriptions);
};

// The WebAssembly schema engine arms a 10-second timer that it never clears, so every migrate
// command lingers 10 s after it has finished. Unreferenced, the timer no longer keeps the CLI alive.
const originalSetTimeout = global.setTimeout;
global.setTimeout = ((callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
  const timer = originalSetTimeout(callback, ms, ...args);
  if ((ms ?? 0) >= 10_000) timer.unref();
  return timer;
}) as typeof setTimeout;

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  async adapter() {
    const connectionString = process.env.DATABASE_URL;
    if (!connectionString) throw new Error('DATABASE_URL must be set for Prisma CLI commands that reach a database');
    // allowExitOnIdle: an idle pool must not keep the CLI process alive.
    return new PrismaPg({ connectionString, allowExitOnIdle: true });
  },
});
