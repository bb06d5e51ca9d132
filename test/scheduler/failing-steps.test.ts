/**
 * Issue 34 item 5: a step that fails for one guarantee never blocks the others. Agency B holds 150
 * sandbox guarantees whose review always fails (their clocks were moved to December 9999 before
 * clocks were bounded: the review's billing day falls in year 10000); agency A's guarantee, created
 * after them, is reviewed within two runs of being due, although a run takes at most 100
 * guarantees per job. B's failures are recorded, logged once each with their cause, left out of
 * the runs until their retry time, and retried after it.
 */
import request from 'supertest';
import { scheduledJobs } from '../../src/sandbox/lifecycle-jobs';
import { runSchedulerOnce } from '../../src/scheduler/scheduler';
import { API, asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { capturingLogger } from './scheduler-helpers';

const world = useTestApp({ ENVIRONMENT: 'sandbox', SCHEDULER_BATCH_SIZE: '100', SCHEDULER_RETRY_BASE_SECONDS: '60' }, { agencies: 2 });
const FAILING = 150;

test('When 150 of agency B’s guarantees fail their step on every run, then agency A’s guarantee still moves within two runs, and B’s are retried later, logged once each', async () => {
  const [agencyA, agencyB] = world.agencies;
  const b = asPartner(world, agencyB);
  const failing: number[] = [];
  for (let index = 0; index < FAILING; index += 1) failing.push((await b.newGuarantee()).id);
  // What an earlier release let a partner do: clocks at 15 December 9999.
  await world.db.$executeRaw`
    UPDATE rental_insurances SET clock_offset_ms = ${BigInt(Date.UTC(9999, 11, 15) - Date.now())}
    WHERE id = ANY (${failing.map(BigInt)}::bigint[])`;
  const created = await asPartner(world, agencyA).newGuarantee();

  // A's review is due 5 seconds after its creation (SANDBOX_REVIEW_DELAY_SECONDS).
  const due = new Date(Date.now() + 10_000);
  const { logger, lines } = capturingLogger();
  const first = await runSchedulerOnce(world.db, world.config, scheduledJobs(world.config), due, { logger });
  expect(first['sandbox_review']!.failed).toBe(100);
  let runs = 1;
  while ((await statusOf(created.id)) === 'under_review' && runs < 2) {
    await runSchedulerOnce(world.db, world.config, scheduledJobs(world.config), due, { logger });
    runs += 1;
  }
  expect(await statusOf(created.id)).toBe('approved');

  // Every failing guarantee is recorded once per job it failed, and waits for its retry time.
  const recorded = await world.db.scheduledStepFailure.findMany({ where: { job: 'sandbox_review' } });
  expect(recorded).toHaveLength(FAILING);
  expect(recorded.every((failure) => failure.attempts === 1 && failure.retryAt > due && failure.lastError.length > 0)).toBe(true);
  expect((await runSchedulerOnce(world.db, world.config, scheduledJobs(world.config), due, { logger }))['sandbox_review']).toEqual({
    processed: 0,
    failed: 0,
  });

  // After the retry delay they are tried again (and fail again): logged at debug, not at warn again.
  const later = new Date(due.getTime() + 61_000);
  let retried = 0;
  for (let run = 0; run < 2; run += 1)
    retried += (await runSchedulerOnce(world.db, world.config, scheduledJobs(world.config), later, { logger }))['sandbox_review']!.failed;
  expect(retried).toBe(FAILING);
  const again = await world.db.scheduledStepFailure.findMany({ where: { job: 'sandbox_review' } });
  expect(again.every((failure) => failure.attempts === 2 && failure.retryAt.getTime() >= later.getTime() + 120_000)).toBe(true);
  const warnings = lines.filter((line) => line['level'] === 40 && line['job'] === 'sandbox_review');
  expect(new Set(warnings.map((line) => line['rentalInsuranceId'])).size).toBe(FAILING);
  expect(warnings).toHaveLength(FAILING);
  expect(warnings[0]).toMatchObject({ err: expect.objectContaining({ message: expect.any(String) }), msg: expect.stringMatching(/retry/) });
}, 300_000);

async function statusOf(id: number): Promise<string> {
  const response = await request(world.app).get(`${API}/v1/rental-insurances/${id}`).set(world.agencies[0]!.auth);
  return response.body.status as string;
}
