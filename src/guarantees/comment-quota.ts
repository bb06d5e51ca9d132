/**
 * An agency may add at most COMMENT_QUOTA_PER_DAY comments per calendar day (America/Sao_Paulo),
 * across its guarantees: comments are free text that every history read returns, so one agency
 * must not be able to grow the store without bound. Counted in the comment's own transaction (a
 * refused or rolled-back comment counts nothing), on one of 16 rows per agency and day so that
 * concurrent comments seldom queue on one row. The others' shards are read as committed, so comments
 * running at the very same moment may pass the cap by as many as run at once: a bound on abuse, not
 * an exact count.
 */
import type { Queryable } from '../database/prisma-client';
import { todayInSaoPaulo } from '../database/column-values';
import { ApiError } from '../errors';
import type { Status } from './transitions/status-machine';

export interface CommentSlot {
  /** The commented guarantee's status (a comment's entry shows it as both previous and new status). */
  status: Status;
  /**
   * The transaction's time, as the history entry's `created_at` default would store it (milliseconds),
   * on the guarantee's own clock (ahead of it after a sandbox time travel).
   */
  at: Date;
}

/**
 * The agency's guarantee `id` and one more comment of the day, in one statement: undefined when the
 * agency has no such guarantee (nothing is counted), 429 when the day's quota is spent.
 */
export async function takeCommentSlot(
  db: Queryable,
  companyId: string,
  id: bigint,
  perDay: number,
  now = new Date(),
): Promise<CommentSlot | undefined> {
  const day = todayInSaoPaulo(now);
  // The day's count is spread over 16 rows, one per connection shard, so that concurrent comments
  // of one agency do not queue on one row; the total is this shard's new count plus the others'
  // (the statement's snapshot does not see its own increment, hence the split).
  const [slot] = await db.$queryRaw<Array<CommentSlot & { count: number }>>`
    WITH guarantee AS (
      SELECT status, clock_offset_ms FROM rental_insurances WHERE company_id = ${companyId} AND id = ${id}
    ), bump AS (
      INSERT INTO comment_quota_usage AS u (company_id, day, shard, count)
      SELECT ${companyId}, ${day}::date, (pg_backend_pid() % 16)::smallint, 1 FROM guarantee
      ON CONFLICT (company_id, day, shard) DO UPDATE SET count = u.count + 1
      RETURNING shard, count
    )
    SELECT g.status::text AS status, CURRENT_TIMESTAMP(3) + g.clock_offset_ms * interval '1 millisecond' AS at,
           (b.count + COALESCE((SELECT sum(o.count) FROM comment_quota_usage o
                                WHERE o.company_id = ${companyId} AND o.day = ${day}::date AND o.shard <> b.shard), 0))::int AS count
    FROM guarantee g, bump b`;
  if (!slot) return undefined;
  if (slot.count > perDay) {
    const retryAfter = Math.max(1, secondsUntilNextDay(now));
    throw new ApiError(
      429,
      'comment_quota_exceeded',
      `This agency added its ${perDay} comments of the day; comment again tomorrow (America/Sao_Paulo).`,
      undefined,
      {
        'Retry-After': String(retryAfter),
      },
    );
  }
  return { status: slot.status, at: slot.at };
}

/** Seconds from `now` to the next midnight in São Paulo (UTC-3, without daylight saving since 2019). */
export function secondsUntilNextDay(now: Date): number {
  const saoPaulo = now.getTime() - 3 * 3_600_000;
  const nextMidnight = (Math.floor(saoPaulo / 86_400_000) + 1) * 86_400_000;
  return Math.ceil((nextMidnight - saoPaulo) / 1000);
}
