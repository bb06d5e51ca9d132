/**
 * How scheduler runs behave (production configuration): batches, guarantees locked by a write,
 * failures that are retried, nothing automatic outside the sandbox, and the interval timer.
 */
import { TEST_WEBHOOK_KEY } from '../support/factories';
import { runSchedulerOnce, startScheduler } from '../../src/scheduler/scheduler';
import { scheduledJobs } from '../../src/sandbox/lifecycle-jobs';
import { backOffice } from '../support/back-office';
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { capturingLogger, DAY_MS, processed } from './scheduler-helpers';
import { waitFor } from '../support/wait-for';

const world = useTestApp(
  { ENVIRONMENT: 'production', PUBLIC_ORIGIN: 'https://api.example.test', WEBHOOK_SECRET_KEY: TEST_WEBHOOK_KEY },
  { agencies: 1 },
);
const partner = asPartner(world);
const office = backOffice(world);

const later = (days: number, extraMs = 0) => new Date(Date.now() + days * DAY_MS + extraMs);

test('When more guarantees are due than the batch size, then a run changes at most the batch size and the next run the rest', async () => {
  const ids: number[] = [];
  for (let index = 0; index < 3; index += 1) {
    const created = await partner.newGuarantee();
    await office.approve(created.id);
    ids.push(created.id);
  }
  const config = { ...world.config, SCHEDULER_BATCH_SIZE: 2 };
  const now = later(100);
  const first = await runSchedulerOnce(world.db, config, scheduledJobs(config), now);
  expect(processed(first, 'expire_proposals')).toBe(2);
  let runs = 1;
  while (processed(await runSchedulerOnce(world.db, config, scheduledJobs(config), now), 'expire_proposals') > 0) runs += 1;
  expect(runs).toBeGreaterThanOrEqual(2);
  for (const id of ids) expect((await partner.current(id)).status).toBe('expired');
});

test('When a guarantee is locked by a write in progress, then the scheduler skips it without waiting and changes it on the next run', async () => {
  const created = await partner.newGuarantee();
  await office.approve(created.id);
  let release!: () => void;
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const holder = world.db.$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT id FROM rental_insurances WHERE id = ${BigInt(created.id)} FOR UPDATE`;
      locked();
      await new Promise<void>((resolve) => (release = resolve));
    },
    { timeout: 20_000 },
  );
  await isLocked;
  // Skipped, not waited for: a run that waited for the lock would change it once the holder's
  // transaction ended (its timeout), and count it processed.
  const summary = await runSchedulerOnce(world.db, world.config, scheduledJobs(world.config), later(200));
  expect(summary['expire_proposals']).toEqual({ processed: 0, failed: 0 });
  expect((await partner.current(created.id)).status).toBe('approved');
  release();
  await holder;
  await runSchedulerOnce(world.db, world.config, scheduledJobs(world.config), later(200));
  expect((await partner.current(created.id)).status).toBe('expired');
});

test('When a change fails for one guarantee, then it is logged, the others are still changed, the run does not throw, and a run after its retry delay retries it', async () => {
  const failing = await partner.newGuarantee();
  const healthy = await partner.newGuarantee();
  await office.approve(failing.id);
  await office.approve(healthy.id);
  await world.db.$executeRawUnsafe(`
    CREATE FUNCTION test_refuse_history() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.rental_insurance_id = ${failing.id} AND NEW.status = 'expired' THEN RAISE EXCEPTION 'history store unavailable'; END IF;
      RETURN NEW;
    END $$`);
  await world.db.$executeRawUnsafe(
    `CREATE TRIGGER test_refuse_history BEFORE INSERT ON history_entries FOR EACH ROW EXECUTE FUNCTION test_refuse_history()`,
  );
  try {
    const { logger, lines } = capturingLogger();
    const summary = await runSchedulerOnce(world.db, world.config, scheduledJobs(world.config), later(300), { logger });
    expect(summary['expire_proposals']!.failed).toBe(1);
    expect((await partner.current(failing.id)).status).toBe('approved');
    expect((await partner.current(failing.id)).etag).toBe('W/"2"');
    expect((await partner.current(healthy.id)).status).toBe('expired');
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 40,
        job: 'expire_proposals',
        rentalInsuranceId: String(failing.id),
        msg: expect.stringMatching(/will retry/),
      }),
    );
  } finally {
    await world.db.$executeRawUnsafe('DROP TRIGGER test_refuse_history ON history_entries');
    await world.db.$executeRawUnsafe('DROP FUNCTION test_refuse_history()');
  }
  // Before its retry delay (SCHEDULER_RETRY_BASE_SECONDS) a run leaves it out; after, a run retries it.
  expect((await runSchedulerOnce(world.db, world.config, scheduledJobs(world.config), later(300)))['expire_proposals']).toEqual({
    processed: 0,
    failed: 0,
  });
  expect((await partner.current(failing.id)).status).toBe('approved');
  await runSchedulerOnce(world.db, world.config, scheduledJobs(world.config), later(300, world.config.SCHEDULER_RETRY_BASE_SECONDS * 1000 + 1000));
  expect((await partner.current(failing.id)).status).toBe('expired');
  expect((await partner.historyEntries(failing.id)).filter((entry) => entry.status.code === 'expired')).toHaveLength(1);
});

test('When the configuration is production, then nothing is reviewed, signed or activated automatically', async () => {
  const underReview = await partner.newGuarantee({ rentalAmount: 3500.01 });
  const accepted = await partner.newGuarantee();
  await office.approve(accepted.id);
  await partner.accept(accepted.id);
  const ready = await partner.newGuarantee();
  await office.approve(ready.id);
  await partner.accept(ready.id);
  await office.envelopeReady(ready.id);
  const before = await Promise.all([underReview, accepted, ready].map((g) => partner.current(g.id)));

  for (let run = 0; run < 3; run += 1) await runSchedulerOnce(world.db, world.config, scheduledJobs(world.config), later(1));

  const after = await Promise.all([underReview, accepted, ready].map((g) => partner.current(g.id)));
  expect(after.map((g) => [g.status, g.etag])).toEqual(before.map((g) => [g.status, g.etag]));
  expect(after.map((g) => g.status)).toEqual(['under_review', 'accepted', 'accepted']);
  const signatures = (await partner.signatureRecords(ready.id)) as Array<{ status: string }>;
  expect(signatures.map((record) => record.status)).toEqual(['awaiting_signature', 'awaiting_signature']);
  expect(await partner.historyEntries(underReview.id)).toHaveLength(1);
});

test('When the scheduler is started, then it runs by itself every interval until stopped; with interval 0 it never starts', async () => {
  const created = await partner.newGuarantee();
  await office.approve(created.id);
  await world.db.rentalInsurance.update({ where: { id: BigInt(created.id) }, data: { approvedAt: new Date(Date.now() - 31 * DAY_MS) } });
  const { logger } = capturingLogger();
  const disabled = startScheduler(world.db, { ...world.config, SCHEDULER_INTERVAL_MS: 0 }, logger, scheduledJobs(world.config));
  await new Promise((resolve) => setTimeout(resolve, 300));
  await disabled.stop();
  expect((await partner.current(created.id)).status).toBe('approved');

  const scheduler = startScheduler(world.db, { ...world.config, SCHEDULER_INTERVAL_MS: 50 }, logger, scheduledJobs(world.config));
  try {
    await waitFor(
      () => partner.current(created.id),
      (guarantee) => guarantee.status === 'expired',
    );
  } finally {
    await scheduler.stop();
  }
  expect((await partner.current(created.id)).status).toBe('expired');
});
