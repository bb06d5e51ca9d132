/**
 * The scheduler's time-driven transitions (expiry, termination, archiving), observed through the
 * partner API. Production configuration: the sandbox reviewer must not act here.
 */
import { loadConfig } from '../../src/config';
import { runSchedulerOnce, startScheduler } from '../../src/operations/scheduler/scheduler';
import { backOffice, standardTerms } from '../support/back-office';
import { createGuarantee } from '../support/factories';
import { partnerClient } from '../support/partner-client';
import { startTestApp, type Agency, type TestApp } from '../support/test-app';
import { activeGuarantee, capturingLogger, DAY_MS, historyOf, processed, readGuarantee } from './scheduler-helpers';

let t: TestApp;
let agency: Agency;
let office: ReturnType<typeof backOffice>;
beforeAll(async () => {
  t = await startTestApp({ ENVIRONMENT: 'production' });
  agency = await t.newAgency();
  office = backOffice(t);
});
afterAll(() => t.close());

const SYSTEM = { name: 'system', serviceAccount: true };
const later = (days: number, extraMs = 0) => new Date(Date.now() + days * DAY_MS + extraMs);

test('When the configuration is not set, then the scheduler defaults apply', () => {
  const config = loadConfig({});
  expect(config).toMatchObject({
    SCHEDULER_INTERVAL_MS: 5000,
    SCHEDULER_BATCH_SIZE: 100,
    PROPOSAL_VALIDITY_DAYS: 30,
    ARCHIVE_AFTER_DAYS: 365,
    SANDBOX_REVIEW_DELAY_SECONDS: 5,
    SANDBOX_SIGNING_DELAY_SECONDS: 5,
    SANDBOX_PROPOSAL_VALIDITY_SECONDS: 60,
  });
  expect(() => loadConfig({ PROPOSAL_VALIDITY_DAYS: '0' })).toThrow(/PROPOSAL_VALIDITY_DAYS/);
});

test('When an approved proposal is 30 days old, then the scheduler expires it once, by system, with a history entry and a new version', async () => {
  const created = await createGuarantee(t, agency);
  await office.approve(created.id);

  await runSchedulerOnce(t.db, t.config, later(29, 23 * 3_600_000));
  expect((await readGuarantee(t, agency, created.id)).status).toBe('approved');

  const summary = await runSchedulerOnce(t.db, t.config, later(30, 60_000));
  expect(processed(summary, 'expire_proposals')).toBeGreaterThanOrEqual(1);
  const after = await readGuarantee(t, agency, created.id);
  expect(after.status).toBe('expired');
  expect(after.etag).toBe('W/"3"');
  const history = await historyOf(t, agency, created.id);
  expect(history).toHaveLength(3);
  expect(history[2]).toMatchObject({
    creator: SYSTEM,
    comment: 'The proposal expired without an answer.',
    previousStatus: { code: 'approved' },
    status: { code: 'expired' },
  });

  await runSchedulerOnce(t.db, t.config, later(60));
  expect(await historyOf(t, agency, created.id)).toHaveLength(3);
  expect((await partnerClient(t, agency).accept(created.id)).status).toBe(409);
});

test('When a proposal was re-approved after a monetary change, then its validity counts from the new approval', async () => {
  const created = await createGuarantee(t, agency);
  await office.approve(created.id);
  await t.db.rentalInsurance.update({ where: { id: BigInt(created.id) }, data: { approvedAt: new Date(Date.now() - 31 * DAY_MS) } });
  const patched = await partnerClient(t, agency).patch(created.id, 'W/"2"', { rentalAmount: 3600 });
  expect(patched.body.status).toBe('under_review');
  await office.approve(created.id);
  await runSchedulerOnce(t.db, t.config);
  expect((await readGuarantee(t, agency, created.id)).status).toBe('approved');
});

test('When PROPOSAL_VALIDITY_DAYS is 2, then a proposal approved 2 days ago expires', async () => {
  const created = await createGuarantee(t, agency);
  await office.approve(created.id);
  const config = { ...t.config, PROPOSAL_VALIDITY_DAYS: 2 };
  await runSchedulerOnce(t.db, config, later(1));
  expect((await readGuarantee(t, agency, created.id)).status).toBe('approved');
  await runSchedulerOnce(t.db, config, later(2, 1000));
  expect((await readGuarantee(t, agency, created.id)).status).toBe('expired');
});

test('When the termination date comes in São Paulo (UTC-3), then the active guarantee terminates; one minute before, it stays active', async () => {
  const created = await activeGuarantee(t, agency, { ...standardTerms, terminationDate: '2030-03-10' });
  expect((await readGuarantee(t, agency, created.id)).status).toBe('active');

  // Years ahead, the archiving job would also archive it in the same run: keep archiving out of the way.
  const config = { ...t.config, ARCHIVE_AFTER_DAYS: 36_500 };
  // 2030-03-10T02:59Z is still 2030-03-09 23:59 in São Paulo.
  await runSchedulerOnce(t.db, config, new Date('2030-03-10T02:59:00Z'));
  expect((await readGuarantee(t, agency, created.id)).status).toBe('active');

  const summary = await runSchedulerOnce(t.db, config, new Date('2030-03-10T03:00:00Z'));
  expect(processed(summary, 'terminate_guarantees')).toBeGreaterThanOrEqual(1);
  const after = await readGuarantee(t, agency, created.id);
  expect(after.status).toBe('terminated');
  const history = await historyOf(t, agency, created.id);
  expect(history.at(-1)).toMatchObject({
    creator: SYSTEM,
    comment: 'The guarantee was terminated.',
    previousStatus: { code: 'active' },
    status: { code: 'terminated' },
  });
});

test('When an active guarantee has no termination date, then time never terminates it', async () => {
  const created = await activeGuarantee(t, agency);
  await runSchedulerOnce(t.db, t.config, later(3650));
  expect((await readGuarantee(t, agency, created.id)).status).toBe('active');
});

test('When a guarantee has been terminated for 365 days, then the scheduler archives it with a history entry', async () => {
  const created = await activeGuarantee(t, agency);
  await office.terminate(created.id);
  await runSchedulerOnce(t.db, t.config, later(364));
  expect((await readGuarantee(t, agency, created.id)).status).toBe('terminated');

  const summary = await runSchedulerOnce(t.db, t.config, later(365, 60_000));
  expect(processed(summary, 'archive_guarantees')).toBeGreaterThanOrEqual(1);
  const after = await readGuarantee(t, agency, created.id);
  expect(after.status).toBe('archived');
  const history = await historyOf(t, agency, created.id);
  expect(history.at(-1)).toMatchObject({
    creator: SYSTEM,
    comment: 'The guarantee was archived.',
    previousStatus: { code: 'terminated' },
    status: { code: 'archived' },
  });
});

test('When more guarantees are due than the batch size, then a run changes at most the batch size and the next run the rest', async () => {
  const ids: number[] = [];
  for (let index = 0; index < 3; index += 1) {
    const created = await createGuarantee(t, agency);
    await office.approve(created.id);
    ids.push(created.id);
  }
  const config = { ...t.config, SCHEDULER_BATCH_SIZE: 2 };
  const now = later(100);
  const first = await runSchedulerOnce(t.db, config, now);
  expect(processed(first, 'expire_proposals')).toBe(2);
  let runs = 1;
  while (processed(await runSchedulerOnce(t.db, config, now), 'expire_proposals') > 0) runs += 1;
  expect(runs).toBeGreaterThanOrEqual(2);
  for (const id of ids) expect((await readGuarantee(t, agency, id)).status).toBe('expired');
});

test('When a guarantee is locked by a write in progress, then the scheduler skips it without waiting and changes it on the next run', async () => {
  const created = await createGuarantee(t, agency);
  await office.approve(created.id);
  let release!: () => void;
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const holder = t.db.$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT id FROM rental_insurances WHERE id = ${BigInt(created.id)} FOR UPDATE`;
      locked();
      await new Promise<void>((resolve) => (release = resolve));
    },
    { timeout: 20_000 },
  );
  await isLocked;
  const started = Date.now();
  const summary = await runSchedulerOnce(t.db, t.config, later(200));
  expect(Date.now() - started).toBeLessThan(4000);
  expect(summary['expire_proposals']).toEqual({ processed: 0, failed: 0 });
  expect((await readGuarantee(t, agency, created.id)).status).toBe('approved');
  release();
  await holder;
  await runSchedulerOnce(t.db, t.config, later(200));
  expect((await readGuarantee(t, agency, created.id)).status).toBe('expired');
});

test('When a change fails for one guarantee, then it is logged, the others are still changed, the run does not throw, and the next run retries it', async () => {
  const failing = await createGuarantee(t, agency);
  const healthy = await createGuarantee(t, agency);
  await office.approve(failing.id);
  await office.approve(healthy.id);
  await t.db.$executeRawUnsafe(`
    CREATE FUNCTION test_refuse_history() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.rental_insurance_id = ${failing.id} AND NEW.status = 'expired' THEN RAISE EXCEPTION 'history store unavailable'; END IF;
      RETURN NEW;
    END $$`);
  await t.db.$executeRawUnsafe(`CREATE TRIGGER test_refuse_history BEFORE INSERT ON history_entries FOR EACH ROW EXECUTE FUNCTION test_refuse_history()`);
  try {
    const { logger, lines } = capturingLogger();
    const summary = await runSchedulerOnce(t.db, t.config, later(300), { logger });
    expect(summary['expire_proposals']!.failed).toBe(1);
    expect((await readGuarantee(t, agency, failing.id)).status).toBe('approved');
    expect((await readGuarantee(t, agency, failing.id)).etag).toBe('W/"2"');
    expect((await readGuarantee(t, agency, healthy.id)).status).toBe('expired');
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 40, job: 'expire_proposals', rentalInsuranceId: String(failing.id), msg: expect.stringMatching(/will retry/) }),
    );
  } finally {
    await t.db.$executeRawUnsafe('DROP TRIGGER test_refuse_history ON history_entries');
    await t.db.$executeRawUnsafe('DROP FUNCTION test_refuse_history()');
  }
  await runSchedulerOnce(t.db, t.config, later(300));
  expect((await readGuarantee(t, agency, failing.id)).status).toBe('expired');
  expect((await historyOf(t, agency, failing.id)).filter((entry) => entry.status.code === 'expired')).toHaveLength(1);
});

test('When the configuration is production, then nothing is reviewed, signed or activated automatically', async () => {
  const underReview = await createGuarantee(t, agency, { rentalAmount: 3500.01 });
  const accepted = await createGuarantee(t, agency);
  await office.approve(accepted.id);
  await partnerClient(t, agency).accept(accepted.id);
  const ready = await createGuarantee(t, agency);
  await office.approve(ready.id);
  await partnerClient(t, agency).accept(ready.id);
  await office.envelopeReady(ready.id);
  const before = await Promise.all([underReview, accepted, ready].map((g) => readGuarantee(t, agency, g.id)));

  for (let run = 0; run < 3; run += 1) await runSchedulerOnce(t.db, t.config, later(1));

  const after = await Promise.all([underReview, accepted, ready].map((g) => readGuarantee(t, agency, g.id)));
  expect(after.map((g) => [g.status, g.etag])).toEqual(before.map((g) => [g.status, g.etag]));
  expect(after.map((g) => g.status)).toEqual(['under_review', 'accepted', 'accepted']);
  const signatures = (await partnerClient(t, agency).signatures(ready.id)).body as Array<{ status: string }>;
  expect(signatures.map((record) => record.status)).toEqual(['awaiting_signature', 'awaiting_signature']);
  expect(await historyOf(t, agency, underReview.id)).toHaveLength(1);
});

test('When the scheduler is started, then it runs by itself every interval until stopped; with interval 0 it never starts', async () => {
  const created = await createGuarantee(t, agency);
  await office.approve(created.id);
  await t.db.rentalInsurance.update({ where: { id: BigInt(created.id) }, data: { approvedAt: new Date(Date.now() - 31 * DAY_MS) } });
  const { logger } = capturingLogger();
  const disabled = startScheduler(t.db, { ...t.config, SCHEDULER_INTERVAL_MS: 0 }, logger);
  await new Promise((resolve) => setTimeout(resolve, 300));
  await disabled.stop();
  expect((await readGuarantee(t, agency, created.id)).status).toBe('approved');

  const scheduler = startScheduler(t.db, { ...t.config, SCHEDULER_INTERVAL_MS: 50 }, logger);
  try {
    const deadline = Date.now() + 10_000;
    while ((await readGuarantee(t, agency, created.id)).status !== 'expired' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await scheduler.stop();
  }
  expect((await readGuarantee(t, agency, created.id)).status).toBe('expired');
});
