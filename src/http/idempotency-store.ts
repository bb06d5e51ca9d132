/**
 * Idempotency records in PostgreSQL, inside the write's own transaction (Prisma's tagged raw SQL:
 * these statements run on every write). Keys are scoped to the company.
 */
import type { Queryable, Transaction } from '../database/prisma-client';
import type { UnitOfWork } from '../database/unit-of-work';
import { Prisma } from '../generated/prisma/client';
import type { StoredOutcome } from './idempotency';

export interface Claim {
  /** This transaction holds the key's advisory lock until it ends. */
  locked: boolean;
  record: StoredOutcome | undefined;
  /** Responses the company stored within the retention window (its cap is IDEMPOTENCY_RECORDS_PER_AGENCY). */
  stored: number;
}

type RecordRow = { [K in keyof StoredOutcome]: StoredOutcome[K] | null } & { stored: number; locked: boolean };

/**
 * The key's transaction-level advisory lock, tried without waiting: a concurrent request with the
 * same key, in any process, is answered 409 at once, and a crashed process releases it with its
 * connection. Its id is computed by PostgreSQL from company and key (length-prefixed, so no two
 * pairs share a text). In the same statement, the key's record and the company's usage. The
 * statement's snapshot is taken before the lock: a write with the same key that commits between
 * the two is not seen, this one runs and its record then clashes with the first one's primary
 * key, so it rolls back entirely and is answered 409 (idempotent-write.ts): never applied twice.
 */
export async function claimKey(tx: Transaction, companyId: string, key: string, retentionHours: number): Promise<Claim> {
  // Always one row: the lock, the key's record (nulls when there is none) and the company's usage.
  const [row] = await tx.$queryRaw<RecordRow[]>`
    SELECT pg_try_advisory_xact_lock(hashtextextended(length(${companyId}::text) || ':' || ${companyId}::text || ${key}::text, 0)) AS locked,
           r.fingerprint, r.response_status AS "responseStatus", r.response_headers AS "responseHeaders",
           r.response_body AS "responseBody", r.created_at AS "createdAt",
           (SELECT COALESCE(sum(u.count), 0)::int FROM idempotency_usage u
             WHERE u.company_id = ${companyId} AND u.hour > now() - make_interval(hours => ${retentionHours}::int)) AS stored
    FROM (SELECT 1) AS one LEFT JOIN idempotency_records r ON r.company_id = ${companyId} AND r.key = ${key}`;
  const record = row && row.fingerprint !== null ? (row as unknown as StoredOutcome) : undefined;
  return { locked: row?.locked === true, record, stored: row?.stored ?? 0 };
}

/**
 * Whether the company's key names a stored outcome (a write that succeeded), read without a lock:
 * an upload refused before its body is read lets a retry of a stored write through to be replayed.
 */
export async function hasStoredOutcome(db: Queryable, companyId: string, key: string): Promise<boolean> {
  const rows = await db.$queryRaw<unknown[]>`SELECT 1 FROM idempotency_records WHERE company_id = ${companyId} AND key = ${key}`;
  return rows.length > 0;
}

/** A record past its retention, found under the lock: the key may be used again. */
export async function forgetRecord(tx: Transaction, companyId: string, key: string): Promise<void> {
  await tx.$executeRaw`DELETE FROM idempotency_records WHERE company_id = ${companyId} AND key = ${key}`;
}

/**
 * The write's last statement, which its unit of work writes (database/unit-of-work.ts): the
 * record, one more in the company's usage of the hour, and the rows the write appended.
 * False when the key already has a record that a write not sharing this one's lock committed
 * meanwhile (claimKey): the caller rolls everything back.
 */
export async function saveRecord(unit: UnitOfWork, companyId: string, key: string, outcome: Omit<StoredOutcome, 'createdAt'>): Promise<boolean> {
  // The usage row is one of 16 shards, the connection's own: one agency's concurrent writes do not
  // queue on one row (its lock is held through COMMIT). Writes running at the same moment may pass
  // the cap by as many as run at once: it bounds storage, it is not an exact count.
  const [row] = await unit.finish<{ saved: number }>(
    [
      Prisma.sql`record AS (
        INSERT INTO idempotency_records (company_id, key, fingerprint, response_status, response_headers, response_body)
        VALUES (${companyId}, ${key}, ${outcome.fingerprint}, ${outcome.responseStatus}, ${JSON.stringify(outcome.responseHeaders)}::jsonb, ${outcome.responseBody})
        ON CONFLICT (company_id, key) DO NOTHING RETURNING 1
      )`,
      Prisma.sql`usage AS (
        INSERT INTO idempotency_usage AS u (company_id, hour, shard, count)
        VALUES (${companyId}, date_trunc('hour', now()), (pg_backend_pid() % 16)::smallint, 1)
        ON CONFLICT (company_id, hour, shard) DO UPDATE SET count = u.count + 1
      )`,
    ],
    Prisma.sql`SELECT count(*)::int AS saved FROM record`,
  );
  return row!.saved === 1;
}
