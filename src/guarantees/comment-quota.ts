/**
 * An agency may add at most COMMENT_QUOTA_PER_DAY comments per calendar day (America/Sao_Paulo),
 * across its guarantees: comments are free text that every history read returns, so one agency
 * must not be able to grow the store without bound. Counted in the comment's own transaction (a
 * refused or rolled-back comment counts nothing); concurrent comments of one agency queue on the
 * day's row.
 */
import type { Queryable } from '../database/prisma-client';
import { todayInSaoPaulo } from '../database/column-values';
import { ApiError } from '../errors';

export async function consumeCommentQuota(db: Queryable, companyId: string, perDay: number, now = new Date()): Promise<void> {
  const day = todayInSaoPaulo(now);
  const [usage] = await db.$queryRaw<Array<{ count: number }>>`
    INSERT INTO comment_quota_usage AS u (company_id, day, count) VALUES (${companyId}, ${day}::date, 1)
    ON CONFLICT (company_id, day) DO UPDATE SET count = u.count + 1
    RETURNING count`;
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
