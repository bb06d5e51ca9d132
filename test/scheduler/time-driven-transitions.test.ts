/**
 * The scheduler's time-driven transitions (expiry, termination, archiving), observed through the
 * partner API. Production configuration: the sandbox reviewer must not act here.
 */
import { TEST_WEBHOOK_KEY } from '../support/factories';
import { loadConfig } from '../../src/config';
import { runSchedulerOnce } from '../../src/scheduler/scheduler';
import { scheduledJobs } from '../../src/sandbox/lifecycle-jobs';
import { backOffice, standardTerms } from '../support/back-office';
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { activeGuarantee, DAY_MS, processed } from './scheduler-helpers';

const world = useTestApp(
  { ENVIRONMENT: 'production', PUBLIC_ORIGIN: 'https://api.example.test', WEBHOOK_SECRET_KEY: TEST_WEBHOOK_KEY },
  { agencies: 1 },
);
const partner = asPartner(world);
const office = backOffice(world);

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
  const created = await partner.newGuarantee();
  await office.approve(created.id);

  await runSchedulerOnce(world.db, world.config, scheduledJobs(world.config), later(29, 23 * 3_600_000));
  expect((await partner.current(created.id)).status).toBe('approved');

  const summary = await runSchedulerOnce(world.db, world.config, scheduledJobs(world.config), later(30, 60_000));
  expect(processed(summary, 'expire_proposals')).toBeGreaterThanOrEqual(1);
  const after = await partner.current(created.id);
  expect(after.status).toBe('expired');
  expect(after.etag).toBe('W/"3"');
  const history = await partner.historyEntries(created.id);
  expect(history).toHaveLength(3);
  expect(history[2]).toMatchObject({
    creator: SYSTEM,
    comment: 'The proposal expired without an answer.',
    previousStatus: { code: 'approved' },
    status: { code: 'expired' },
  });

  await runSchedulerOnce(world.db, world.config, scheduledJobs(world.config), later(60));
  expect(await partner.historyEntries(created.id)).toHaveLength(3);
  expect((await partner.accept(created.id)).status).toBe(409);
});

test('When a proposal was re-approved after a monetary change, then its validity counts from the new approval', async () => {
  const created = await partner.newGuarantee();
  await office.approve(created.id);
  await world.db.rentalInsurance.update({ where: { id: BigInt(created.id) }, data: { approvedAt: new Date(Date.now() - 31 * DAY_MS) } });
  const patched = await partner.patch(created.id, { rentalAmount: 3600 }, { ifMatch: 'W/"2"' });
  expect(patched.body.status).toBe('under_review');
  await office.approve(created.id);
  await runSchedulerOnce(world.db, world.config, scheduledJobs(world.config));
  expect((await partner.current(created.id)).status).toBe('approved');
});

test('When PROPOSAL_VALIDITY_DAYS is 2, then a proposal approved 2 days ago expires', async () => {
  const created = await partner.newGuarantee();
  await office.approve(created.id);
  const config = { ...world.config, PROPOSAL_VALIDITY_DAYS: 2 };
  await runSchedulerOnce(world.db, config, scheduledJobs(config), later(1));
  expect((await partner.current(created.id)).status).toBe('approved');
  await runSchedulerOnce(world.db, config, scheduledJobs(config), later(2, 1000));
  expect((await partner.current(created.id)).status).toBe('expired');
});

test('When the termination date comes in São Paulo (UTC-3), then the active guarantee terminates; one minute before, it stays active', async () => {
  const created = await activeGuarantee(world, world.agency, { ...standardTerms, terminationDate: '2030-03-10' });
  expect((await partner.current(created.id)).status).toBe('active');

  // Years ahead, the archiving job would also archive it in the same run: keep archiving out of the way.
  const config = { ...world.config, ARCHIVE_AFTER_DAYS: 36_500 };
  // 2030-03-10T02:59Z is still 2030-03-09 23:59 in São Paulo.
  await runSchedulerOnce(world.db, config, scheduledJobs(config), new Date('2030-03-10T02:59:00Z'));
  expect((await partner.current(created.id)).status).toBe('active');

  const summary = await runSchedulerOnce(world.db, config, scheduledJobs(config), new Date('2030-03-10T03:00:00Z'));
  expect(processed(summary, 'terminate_guarantees')).toBeGreaterThanOrEqual(1);
  const after = await partner.current(created.id);
  expect(after.status).toBe('terminated');
  const history = await partner.historyEntries(created.id);
  expect(history.at(-1)).toMatchObject({
    creator: SYSTEM,
    comment: 'The guarantee was terminated.',
    previousStatus: { code: 'active' },
    status: { code: 'terminated' },
  });
});

test('When an active guarantee has no termination date, then time never terminates it', async () => {
  const created = await activeGuarantee(world, world.agency);
  await runSchedulerOnce(world.db, world.config, scheduledJobs(world.config), later(3650));
  expect((await partner.current(created.id)).status).toBe('active');
});

test('When a guarantee has been terminated for 365 days, then the scheduler archives it with a history entry', async () => {
  const created = await activeGuarantee(world, world.agency);
  await office.terminate(created.id);
  await runSchedulerOnce(world.db, world.config, scheduledJobs(world.config), later(364));
  expect((await partner.current(created.id)).status).toBe('terminated');

  const summary = await runSchedulerOnce(world.db, world.config, scheduledJobs(world.config), later(365, 60_000));
  expect(processed(summary, 'archive_guarantees')).toBeGreaterThanOrEqual(1);
  const after = await partner.current(created.id);
  expect(after.status).toBe('archived');
  const history = await partner.historyEntries(created.id);
  expect(history.at(-1)).toMatchObject({
    creator: SYSTEM,
    comment: 'The guarantee was archived.',
    previousStatus: { code: 'terminated' },
    status: { code: 'archived' },
  });
});
