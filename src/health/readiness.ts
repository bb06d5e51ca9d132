/**
 * Readiness of this process: it is not draining, its database answers within a second, and every
 * migration this build knows is applied (a process of a newer build than the database, or a
 * database rolled back under it, must not take traffic).
 */
import { knownMigrations } from '../database/migrate';
import type { Queryable } from '../database/prisma-client';
import type { Lifecycle } from './lifecycle';

const DATABASE_TIMEOUT_MS = 1_000;

export type ReadinessCheck = () => Promise<boolean>;

export function readinessCheck(db: Queryable, lifecycle: Lifecycle, migrations: string[] = knownMigrations()): ReadinessCheck {
  return async () => {
    if (lifecycle.draining) return false;
    const applied = db.$queryRaw<Array<{ applied: number }>>`
      SELECT count(*)::int AS applied FROM _prisma_migrations
      WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL AND migration_name = ANY(${migrations})`;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), DATABASE_TIMEOUT_MS)));
    try {
      const rows = await Promise.race([applied, timeout]).catch(() => undefined);
      return rows?.[0]?.applied === migrations.length && !lifecycle.draining;
    } finally {
      clearTimeout(timer);
    }
  };
}
