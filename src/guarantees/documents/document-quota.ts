/**
 * An agency may upload at most DOCUMENT_BYTES_PER_AGENCY_PER_DAY bytes per calendar day
 * (America/Sao_Paulo), counted in bytes received (a file stored once already counts too: the
 * transfer is what the quota bounds). Checked twice:
 *  - before a request's body is read (`spentQuotaRefusal`): once the day's bytes are spent, any
 *    upload would pass them (an empty file is refused anyway), so it is refused without reading a
 *    byte of it;
 *  - in the upload's own transaction (`takeDocumentBytes`), which counts the bytes, like comments
 *    (guarantees/comment-quota.ts): a refused or rolled-back upload counts nothing, and the day's
 *    count is spread over 16 rows per agency. Uploads that ran at the same time may each have
 *    passed the first check: this one is what holds the quota.
 */
import type { Queryable } from '../../database/prisma-client';
import { todayInSaoPaulo } from '../../database/column-values';
import { ApiError } from '../../errors';
import { secondsUntilNextDay } from '../comment-quota';

/** Counts `bytes` more for the agency today; 429 when that passes the quota (the transaction then undoes the count). */
export async function takeDocumentBytes(db: Queryable, companyId: string, bytes: number, perDay: number, now = new Date()): Promise<void> {
  const day = todayInSaoPaulo(now);
  const [row] = await db.$queryRaw<Array<{ total: bigint }>>`
    WITH bump AS (
      INSERT INTO document_quota_usage AS u (company_id, day, shard, bytes)
      VALUES (${companyId}, ${day}::date, (pg_backend_pid() % 16)::smallint, ${bytes})
      ON CONFLICT (company_id, day, shard) DO UPDATE SET bytes = u.bytes + EXCLUDED.bytes
      RETURNING shard, bytes
    )
    SELECT (b.bytes + COALESCE((SELECT sum(o.bytes) FROM document_quota_usage o
                                WHERE o.company_id = ${companyId} AND o.day = ${day}::date AND o.shard <> b.shard), 0))::bigint AS total
    FROM bump b`;
  if (row && Number(row.total) > perDay) throw quotaExceeded(perDay, now);
}

/** The refusal of an upload when the agency already uploaded its bytes of the day (no transaction, one indexed read); else undefined. */
export async function spentQuotaRefusal(db: Queryable, companyId: string, perDay: number, now = new Date()): Promise<ApiError | undefined> {
  const day = todayInSaoPaulo(now);
  const [row] = await db.$queryRaw<Array<{ total: bigint }>>`
    SELECT COALESCE(sum(bytes), 0)::bigint AS total FROM document_quota_usage WHERE company_id = ${companyId} AND day = ${day}::date`;
  return row && Number(row.total) >= perDay ? quotaExceeded(perDay, now) : undefined;
}

function quotaExceeded(perDay: number, now: Date): ApiError {
  return new ApiError(
    429,
    'document_quota_exceeded',
    `This agency uploaded its ${perDay} bytes of documents of the day; upload again tomorrow (America/Sao_Paulo).`,
    undefined,
    { 'Retry-After': String(Math.max(1, secondsUntilNextDay(now))) },
  );
}
