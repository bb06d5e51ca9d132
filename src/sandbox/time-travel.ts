/**
 * Sandbox time travel (partner document, *Testing in the sandbox*): a partner moves one guarantee's
 * clock forward (`by` a duration or `to` a time), and everything time drives happens to it as it
 * would have. There is no second implementation of those steps: the scheduler's own jobs
 * (src/guarantees/transitions/time-driven.ts, src/sandbox/sandbox-jobs.ts) each say from when a guarantee
 * is due (`dueAt`), and this applies, in the write's transaction, the earliest due step up to the
 * new time, at the time it was due, until none is left: the same review actions, status machine,
 * history entries, ledger entries and events, each stamped with the time it "happened".
 *
 * The guarantee then keeps the clock: `clock_offset_ms` (its time minus the wall clock) stamps its
 * later changes (src/guarantees/guarantee-clock.ts), and the sandbox's scheduler reads its due work
 * on that clock (lifecycle-jobs.ts), so nothing is applied twice and no other guarantee moves.
 */
import { Prisma } from '../generated/prisma/client';
import type { Queryable } from '../database/prisma-client';
import type { UnitOfWork } from '../database/unit-of-work';
import { BadRequest, Conflict, rentalInsuranceNotFound, ValidationFailed } from '../errors';
import { findGuarantee, lockGuarantee } from '../guarantees/guarantee-repository';
import type { GuaranteeRow } from '../guarantees/guarantee-mapper';
import type { ScheduledJob } from '../scheduler/job';
import { addDuration, parseDateTime, parseDuration } from '../validation/time-values';

/** One call moves a clock by at most this much, so that its dates stay readable and its work bounded. */
export const MAX_ADVANCE_DAYS = 1830;
/**
 * A guarantee's clock is at most this far ahead of the wall clock (about 100 years), so that every
 * date derived from it (a review's billing and termination days, 30 months on; archiving, a year
 * after termination) stays far inside the years 0001-9999 that the documents' formats allow.
 */
export const MAX_CLOCK_OFFSET_DAYS = 36_525;
/** Steps one call applies at most; a guarantee's lifecycle has far fewer (the scheduler takes any rest). */
export const MAX_STEPS = 20;
const DAY_MS = 86_400_000;

export interface ClockRequest {
  by?: string;
  to?: string;
}

export interface ClockAdvance {
  /** The guarantee's time before and after the call. */
  previousNow: Date;
  now: Date;
  /** Time-driven steps applied, in order. */
  steps: Array<{ job: string; at: Date }>;
  row: GuaranteeRow;
}

export async function advanceClock(
  unit: UnitOfWork,
  jobs: readonly ScheduledJob[],
  companyId: string,
  id: bigint,
  request: ClockRequest,
): Promise<ClockAdvance> {
  const { db } = unit;
  const locked = await lockGuarantee(db, companyId, id);
  if (!locked) throw rentalInsuranceNotFound();
  const wall = Date.now();
  const previousNow = new Date(wall + Number(locked.clockOffsetMs));
  const now = targetTime(previousNow, request, wall);
  await db.$executeRaw`UPDATE rental_insurances SET clock_offset_ms = ${BigInt(now.getTime() - wall)} WHERE id = ${id}`;

  const steps: ClockAdvance['steps'] = [];
  while (steps.length < MAX_STEPS) {
    const next = await nextDueStep(db, jobs, id);
    if (!next || next.dueAt > now) break;
    // A step that was already due (the scheduler had not run yet) happens at the old time, never before it.
    const at = next.dueAt < previousNow ? previousNow : next.dueAt;
    await next.job.perform(unit, id, at, at);
    // The next step's reads (the sandbox review counts earlier history) see this one's rows.
    await unit.flush();
    steps.push({ job: next.job.name, at });
  }
  return { previousNow, now, steps, row: (await findGuarantee(db, companyId, id))! };
}

function targetTime(previousNow: Date, request: ClockRequest, wall: number): Date {
  const field = request.by !== undefined ? 'by' : 'to';
  let now: Date | null;
  if (request.by !== undefined) {
    const duration = parseDuration(request.by);
    if (!duration)
      throw new ValidationFailed([`by: ${JSON.stringify(request.by)} is not an ISO 8601 duration of whole numbers such as P30D or PT1H`]);
    // Null: past the last instant the formats allow, necessarily more than one call may move.
    now = addDuration(previousNow, duration);
  } else {
    now = parseDateTime(request.to ?? '');
    if (!now) throw new ValidationFailed([`to: must be an RFC 3339 date-time between the years 0001 and 9999`]);
  }
  if (now && now < previousNow) {
    throw new Conflict('clock_cannot_go_back', `The guarantee's clock is at ${previousNow.toISOString()}; time travel only moves it forward.`);
  }
  if (!now || now.getTime() - previousNow.getTime() > MAX_ADVANCE_DAYS * DAY_MS) {
    throw new BadRequest(
      'clock_advance_too_far',
      `One call moves a guarantee's clock by at most ${MAX_ADVANCE_DAYS} days; call again to go further.`,
      [`${field}: more than ${MAX_ADVANCE_DAYS} days ahead of the guarantee's clock (${previousNow.toISOString()})`],
    );
  }
  if (now.getTime() - wall > MAX_CLOCK_OFFSET_DAYS * DAY_MS) {
    throw new BadRequest(
      'clock_advance_too_far',
      `A guarantee's clock may be at most ${MAX_CLOCK_OFFSET_DAYS} days (about 100 years) ahead of the wall clock.`,
      [`${field}: more than ${MAX_CLOCK_OFFSET_DAYS} days ahead of the wall clock`],
    );
  }
  return now;
}

/** The job due first for guarantee `id` (in job order among equal times), with its due time. */
async function nextDueStep(db: Queryable, jobs: readonly ScheduledJob[], id: bigint) {
  const [row] = await db.$queryRaw<Array<{ due: Array<Date | null> }>>`
    SELECT ARRAY[${Prisma.join(jobs.map((job) => Prisma.sql`(${job.dueAt})::timestamptz`))}] AS due
    FROM rental_insurances r WHERE r.id = ${id}`;
  let next: { job: ScheduledJob; dueAt: Date } | undefined;
  row?.due.forEach((dueAt, index) => {
    if (dueAt && (!next || dueAt < next.dueAt)) next = { job: jobs[index]!, dueAt: new Date(dueAt) };
  });
  return next;
}
