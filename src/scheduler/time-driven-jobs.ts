/**
 * Transitions driven by time alone, in every environment (Lifecycle table of the partner document):
 *   approved   -> expired     when approvedAt + PROPOSAL_VALIDITY_DAYS has passed
 *   active     -> terminated  when terminationDate (a calendar day in America/Sao_Paulo) has come
 *   terminated -> archived    when terminatedAt + ARCHIVE_AFTER_DAYS has passed
 * Each calls the back office's review action, so the status machine, the version and the history
 * entry (creator `system`) are the same as when staff move the guarantee.
 */
import { Prisma } from '../generated/prisma/client';
import type { Config } from '../config';
import { todayInSaoPaulo } from '../database/column-values';
import { archive, expireProposal, lockForReview, terminate } from '../guarantees/review-actions';
import type { ScheduledJob } from './job';

const DAY_MS = 86_400_000;

const before = (now: Date, days: number) => new Date(now.getTime() - days * DAY_MS);
const days = (count: number) => Prisma.sql`make_interval(days => ${count}::int)`;

export function timeDrivenJobs(config: Config): ScheduledJob[] {
  return [
    {
      name: 'expire_proposals',
      eligible: (now) => Prisma.sql`r.status = 'approved' AND r.approved_at <= ${before(now, config.PROPOSAL_VALIDITY_DAYS)}`,
      dueAt: Prisma.sql`CASE WHEN r.status = 'approved' THEN r.approved_at + ${days(config.PROPOSAL_VALIDITY_DAYS)} END`,
      order: Prisma.sql`r.approved_at, r.id`,
      perform: async (unit, id, _now, at) => {
        await expireProposal(unit, await lockForReview(unit.db, id, at));
      },
    },
    {
      name: 'terminate_guarantees',
      eligible: (now) => Prisma.sql`r.status = 'active' AND r.termination_date <= ${todayInSaoPaulo(now)}::date`,
      // The start of the termination day in São Paulo.
      dueAt: Prisma.sql`CASE WHEN r.status = 'active' THEN r.termination_date::timestamp AT TIME ZONE 'America/Sao_Paulo' END`,
      order: Prisma.sql`r.termination_date, r.id`,
      perform: async (unit, id, _now, at) => {
        await terminate(unit, await lockForReview(unit.db, id, at));
      },
    },
    {
      name: 'archive_guarantees',
      eligible: (now) => Prisma.sql`r.status = 'terminated' AND r.terminated_at <= ${before(now, config.ARCHIVE_AFTER_DAYS)}`,
      dueAt: Prisma.sql`CASE WHEN r.status = 'terminated' THEN r.terminated_at + ${days(config.ARCHIVE_AFTER_DAYS)} END`,
      order: Prisma.sql`r.terminated_at, r.id`,
      perform: async (unit, id, _now, at) => {
        await archive(unit, await lockForReview(unit.db, id, at));
      },
    },
  ];
}
