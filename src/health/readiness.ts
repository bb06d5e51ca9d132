/**
 * Readiness of this process: it is not draining, its database answers within a second, and every
 * migration this build knows is applied (a process of a newer build than the database, or a
 * database rolled back under it, must not take traffic).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Queryable } from '../database/prisma-client';
import { PROJECT_ROOT } from '../project-root';
import type { Lifecycle } from './lifecycle';

const DATABASE_TIMEOUT_MS = 1_000;

/** The migrations of this build (the folders of prisma/migrations). */
export function knownMigrations(root = PROJECT_ROOT): string[] {
  const folder = path.join(root, 'prisma', 'migrations');
  return fs
    .readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
}

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
