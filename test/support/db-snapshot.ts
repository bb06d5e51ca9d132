/**
 * A snapshot of everything a request could have changed: the row count of every table of the
 * database (found in the catalogue, so tables added later are included) and the id, version,
 * status and updatedAt of every guarantee. Two equal snapshots mean that nothing was written.
 * The request log is left out: its lines record requests (refused ones too), not their effects.
 */
import type { Database } from '../../src/database/prisma-client';

export interface DatabaseSnapshot {
  counts: Record<string, number>;
  guarantees: string;
}

const tablesOf = new WeakMap<object, string[]>();

async function tables(db: Database): Promise<string[]> {
  let names = tablesOf.get(db);
  if (!names) {
    const rows = await db.$queryRawUnsafe<Array<{ name: string }>>(
      `SELECT table_name::text AS name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name NOT IN ('_prisma_migrations', 'request_log') ORDER BY 1`,
    );
    names = rows.map((row) => row.name);
    tablesOf.set(db, names);
  }
  return names;
}

export async function takeSnapshot(db: Database): Promise<DatabaseSnapshot> {
  const names = await tables(db);
  const counts = names.map((name) => `SELECT '${name}' AS name, count(*)::int AS count FROM "${name}"`).join(' UNION ALL ');
  const [countRows, guaranteeRows] = await Promise.all([
    db.$queryRawUnsafe<Array<{ name: string; count: number }>>(counts),
    db.$queryRawUnsafe<Array<{ rows: string | null }>>(
      `SELECT string_agg(id || ':' || version || ':' || status || ':' || extract(epoch FROM updated_at), ',' ORDER BY id) AS rows FROM rental_insurances`,
    ),
  ]);
  return {
    counts: Object.fromEntries(countRows.map((row) => [row.name, row.count])),
    guarantees: guaranteeRows[0]?.rows ?? '',
  };
}

/** The tables whose counts differ, and whether guarantees' versions differ: empty when equal. */
export function snapshotDifference(before: DatabaseSnapshot, after: DatabaseSnapshot): string[] {
  const changed = Object.keys({ ...before.counts, ...after.counts })
    .filter((name) => before.counts[name] !== after.counts[name])
    .map((name) => `${name}: ${before.counts[name]} -> ${after.counts[name]}`);
  if (before.guarantees !== after.guarantees)
    changed.push(`rental_insurances (id:version:status:updatedAt): ${before.guarantees} -> ${after.guarantees}`);
  return changed;
}
