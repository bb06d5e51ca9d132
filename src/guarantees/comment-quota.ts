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

export async function consumeCommentQuota(db: Queryable, companyId: string, perDay: number, now = new Date()): Promise<void> {
  const day = todayInSaoPaulo(now);
  // The day's count is spread over 16 rows, one per connection shard, so that concurrent comments
  // of one agency do not queue on one row; the total is this shard's new count plus the others'
  // (the statement's snapshot does not see its own increment, hence the split).
  const [usage] = await db.$queryRaw<Array<{ count: number }>>`
    WITH bump AS (
      INSERT INTO comment_quota_usage AS u (company_id, day, shard, count)
      VALUES (${companyId}, ${day}::date, (pg_backend_pid() % 16)::smallint, 1)
      ON CONFLICT (company_id, day, shard) DO UPDATE SET count = u.count + 1
      RETURNING shard, count
    )
    SELECT (b.count + COALESCE((SELECT sum(o.count) FROM comment_quota_usage o
                                WHERE o.company_id = ${companyId} AND o.day = ${day}::date AND o.shard <> b.shard), 0))::int AS count
    FROM bump b`;
  if (usage!.count > perDay) {
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
}

/** Seconds from `now` to the next midnight in São Paulo (UTC-3, without daylight saving since 2019). */
function secondsUntilNextDay(now: Date): number {
  const saoPaulo = now.getTime() - 3 * 3_600_000;
  const nextMidnight = (Math.floor(saoPaulo / 86_400_000) + 1) * 86_400_000;
  return Math.ceil((nextMidnight - saoPaulo) / 1000);
}
