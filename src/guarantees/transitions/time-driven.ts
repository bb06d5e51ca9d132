/**
 * Transitions driven by time alone, in every environment (Lifecycle table of the partner document):
 *   approved   -> expired     when approvedAt + PROPOSAL_VALIDITY_DAYS has passed
 *   active     -> terminated  when terminationDate (a calendar day in America/Sao_Paulo) has come
 *   terminated -> archived    when terminatedAt + ARCHIVE_AFTER_DAYS has passed
 * Each calls the reviewers' action (review-actions.ts), so the status machine, the version and the
 * history entry (creator `system`) are the same as when staff move the guarantee. The scheduler
 * (src/scheduler/) runs them, as it is handed them by its starter (src/sandbox/lifecycle-jobs.ts).
 */
import { Prisma } from '../../generated/prisma/client';
import type { Config } from '../../config';
import { todayInSaoPaulo } from '../../database/column-values';
import { archive, expireProposal, lockForReview, terminate } from './review-actions';
import type { UnitOfWork } from '../../database/unit-of-work';

export interface ScheduledJob {
  /** Stable name, used in logs and in the run summary. */
  name: string;
  /** SQL condition on `rental_insurances r` that makes a guarantee eligible at `now`. */
  eligible(now: Date): Prisma.Sql;
  /**
   * SQL expression on `rental_insurances r`: the time from which the guarantee is eligible, NULL
   * when it is not in a state this job changes; `dueAt <= now` holds exactly when `eligible(now)`
   * does (`eligible` is kept as its own condition for the indexes). Sandbox time travel applies the
   * job at this time, and the scheduler reads it on a time-travelled guarantee's own clock.
   */
  dueAt: Prisma.Sql;
  /** Order in which eligible guarantees are taken (oldest first); must end with `r.id`. */
  order: Prisma.Sql;
  /**
   * Applies the change to the claimed guarantee, in the claiming transaction's unit of work (written after it). `at`: when the
   * change happens, when not now on the guarantee's clock (time travel: the time it was due).
   */
  perform(unit: UnitOfWork, id: bigint, now: Date, at?: Date): Promise<void>;
}

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
