/**
 * One kind of scheduled transition and the loop that applies it, safely when several service
 * processes share the database.
 *
 * Each guarantee is claimed and changed in one short transaction of its own:
 *
 *   SELECT r.id FROM rental_insurances r WHERE <eligible at now> ORDER BY ... LIMIT 1
 *     FOR UPDATE OF r SKIP LOCKED
 *   -> the change (src/guarantees/transitions/: status machine, version, history)
 *   -> the history entries and events its unit of work appended, written before COMMIT (database/unit-of-work.ts)
 *   -> COMMIT
 *
 * A row another process (or a partner write) holds is skipped, not waited for; a row another
 * process changed and committed meanwhile is re-checked by PostgreSQL against the condition
 * (READ COMMITTED re-evaluates the WHERE clause of a locking read on the newest row version) and
 * no longer matches. So every item is changed exactly once, whatever the number of processes.
 */
import { Prisma } from '../generated/prisma/client';
import { databaseFailed } from '../database/outage-log';
import type { Database } from '../database/prisma-client';
import { inUnitOfWork, type UnitOfWork } from '../database/unit-of-work';
import type { ScheduledJob } from '../guarantees/transitions/time-driven';
import type { Logger } from '../logger';
import { metrics } from '../observability/metrics';
import { inSpan } from '../tracing/tracing';
import { clearFailure, failedBefore, recordFailure, waitingForRetry, type RetryDelays } from './step-failures';

/** One kind of scheduled transition: which guarantees are due, in what order, and the move (declared with the transitions). */
export type { ScheduledJob };

export interface JobResult {
  /** Guarantees changed. */
  processed: number;
  /** Guarantees whose change failed (rolled back, recorded, retried after a growing delay). */
  failed: number;
}

export interface JobRun {
  now: Date;
  batchSize: number;
  logger: Logger;
  retry: RetryDelays;
  stopping?: () => boolean;
}

/**
 * Applies `job` to at most `batchSize` guarantees. Never throws: a failing guarantee is recorded
 * (step-failures.ts) and left out of the runs until its retry time, so that it can never fill the
 * batch that other guarantees, of its agency or any other, are waiting in; a failure to claim
 * (database unavailable) ends this job's run.
 */
export async function runJob(db: Database, job: ScheduledJob, run: JobRun): Promise<JobResult> {
  const { now, batchSize, logger } = run;
  const stopping = run.stopping ?? (() => false);
  const failedIds: bigint[] = [];
  let processed = 0;
  // A stop request ends the run between two guarantees, never in the middle of one.
  while (processed + failedIds.length < batchSize && !stopping()) {
    let claimed: bigint | undefined;
    const claimAndPerform = async (unit: UnitOfWork): Promise<boolean> => {
      const skip = failedIds.length > 0 ? Prisma.sql`AND r.id NOT IN (${Prisma.join(failedIds)})` : Prisma.empty;
      const rows = await unit.db.$queryRaw<Array<{ id: bigint; retried: boolean }>>`
        SELECT r.id, ${failedBefore(job)} AS retried FROM rental_insurances r
        WHERE ${job.eligible(now)} AND NOT ${waitingForRetry(job, now)} ${skip}
        ORDER BY ${job.order}
        LIMIT 1
        FOR UPDATE OF r SKIP LOCKED`;
      claimed = rows[0]?.id;
      if (claimed === undefined) return false;
      await job.perform(unit, claimed, now);
      if (rows[0]!.retried) await clearFailure(unit.db, job, claimed);
      return true;
    };
    try {
      // With tracing on, each guarantee's transition is a span of the run's trace (scheduler.ts).
      const done = await inSpan('scheduler.transition', () => inUnitOfWork(db, claimAndPerform), { 'rg.job': job.name });
      if (!done) break;
      processed += 1;
      metrics.schedulerTransitions.inc({ job: job.name, outcome: 'applied' });
      logger.info({ job: job.name, rentalInsuranceId: String(claimed) }, 'scheduled transition applied');
    } catch (error) {
      if (claimed === undefined) {
        if (!databaseFailed(error)) logger.warn({ err: error, job: job.name }, 'scheduled job could not claim work; will retry on the next run');
        break;
      }
      failedIds.push(claimed);
      metrics.schedulerTransitions.inc({ job: job.name, outcome: 'failed' });
      // An unavailable database is no fault of the guarantee's (and nothing could be recorded).
      if (!databaseFailed(error)) await recordFailure(db, job, claimed, error, run);
    }
  }
  return { processed, failed: failedIds.length };
}
