/**
 * Steps that failed for one guarantee (issue 34 item 5): before, a step that threw was tried again
 * on every run, forever, and 101 such guarantees of one agency filled a batch of 100, so that no
 * other agency's guarantee of that job moved any more. Now a failure is recorded in the database
 * (several processes run the scheduler), with a retry time that doubles at each failure, from
 * SCHEDULER_RETRY_BASE_SECONDS up to SCHEDULER_RETRY_MAX_SECONDS; every run leaves the guarantee
 * out of its batch until then. The first failure is logged with its cause, at `warn`; the later
 * ones only at `debug`, with the attempt count and the next retry time. A success deletes the row.
 */
import { Prisma } from '../generated/prisma/client';
import type { Database, Queryable } from '../database/prisma-client';
import { storableText } from '../http/storable-text';
import type { Logger } from '../logger';
/** What a failure record needs of a job: its name (job.ts imports this file, not the reverse). */
interface NamedJob {
  readonly name: string;
}

export interface RetryDelays {
  baseSeconds: number;
  maxSeconds: number;
}

const MAX_ERROR_LENGTH = 500;

/** SQL on `rental_insurances r`: the guarantee failed this job and its retry time has not come. */
export const waitingForRetry = (job: NamedJob, now: Date) =>
  Prisma.sql`EXISTS (SELECT 1 FROM scheduled_step_failures f WHERE f.job = ${job.name} AND f.rental_insurance_id = r.id AND f.retry_at > ${now})`;

/** SQL on `rental_insurances r`: the guarantee has a failure of this job recorded (its success must clear it). */
export const failedBefore = (job: NamedJob) =>
  Prisma.sql`EXISTS (SELECT 1 FROM scheduled_step_failures f WHERE f.job = ${job.name} AND f.rental_insurance_id = r.id)`;

export async function clearFailure(db: Queryable, job: NamedJob, id: bigint): Promise<void> {
  await db.$executeRaw`DELETE FROM scheduled_step_failures WHERE job = ${job.name} AND rental_insurance_id = ${id}`;
}

/** Records the failure (outside the rolled-back transaction) and logs it: with its cause the first time. */
export async function recordFailure(
  db: Database,
  job: NamedJob,
  id: bigint,
  error: unknown,
  run: { now: Date; logger: Logger; retry: RetryDelays },
): Promise<void> {
  const { now, logger, retry } = run;
  const cause = storableText((error instanceof Error ? error.message : String(error)).slice(0, MAX_ERROR_LENGTH));
  const where = { job: job.name, rentalInsuranceId: String(id) };
  try {
    // The exponent stops at 30: the delay has long reached its maximum, and 2^attempts stays finite.
    const [recorded] = await db.$queryRaw<Array<{ attempts: number; retryAt: Date }>>`
      INSERT INTO scheduled_step_failures AS f (job, rental_insurance_id, attempts, first_failed_at, retry_at, last_error)
      VALUES (${job.name}, ${id}, 1, ${now}, ${now}::timestamptz + make_interval(secs => ${retry.baseSeconds}::float8), ${cause})
      ON CONFLICT (job, rental_insurance_id) DO UPDATE SET
        attempts = f.attempts + 1,
        retry_at = ${now}::timestamptz + make_interval(secs => LEAST(${retry.maxSeconds}::float8, ${retry.baseSeconds}::float8 * power(2, LEAST(f.attempts, 30)))),
        last_error = EXCLUDED.last_error
      RETURNING attempts, retry_at AS "retryAt"`;
    const { attempts, retryAt } = recorded!;
    if (attempts === 1) {
      logger.warn(
        { err: error, ...where, retryAt },
        'scheduled transition failed; left out of the runs until its retry time, will retry with growing delays',
      );
    } else {
      logger.debug({ ...where, attempts, retryAt, cause }, 'scheduled transition failed again; will retry later');
    }
  } catch (recordError) {
    logger.warn(
      { err: error, recordError, ...where },
      'scheduled transition failed, and its failure could not be recorded; will retry on the next run',
    );
  }
}

/** Housekeeping: failures whose retry time is long past (no job wanted the guarantee again, or it moved on). */
export async function purgeStaleFailures(db: Database, now: Date): Promise<number> {
  return db.$executeRaw`DELETE FROM scheduled_step_failures WHERE retry_at < ${now}::timestamptz - interval '1 day'`;
}
