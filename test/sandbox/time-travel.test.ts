/**
 * Sandbox time travel (issue 26 item 2): a partner moves one guarantee's clock forward and every
 * time-driven step happens to it, in order, stamped with the time it was due, through the same
 * jobs as the scheduler; nothing of another guarantee moves, and the scheduler applies nothing twice.
 */
import { runSchedulerOnce } from '../../src/scheduler/scheduler';
import { scheduledJobs } from '../../src/sandbox/lifecycle-jobs';
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { totalProcessed } from '../scheduler/scheduler-helpers';
import { guaranteePath, useStaff } from '../back-office/ops-support';
import { advance, clockOffset, DAY_MS, eventsOf, later, plus, REVIEWER, SYSTEM } from './time-travel-support';
import { waitFor } from '../support/wait-for';

const world = useTestApp({ ENVIRONMENT: 'sandbox' }, { agencies: 1 });
const partner = asPartner(world);
const { ops } = useStaff(world, { name: 'Ana Revisora' });

test('When a sandbox guarantee is advanced past its proposal validity, then it is reviewed and expires at the times they were due, in history and events', async () => {
  const created = await partner.newGuarantee();
  const neighbour = await partner.newGuarantee();

  const moved = await advance(partner, created.id, { by: 'P31D' });
  expect(moved.now).toBe(plus(moved.previousNow, 31 * DAY_MS));
  expect(moved.rentalInsurance.status).toBe('expired');

  // Reviewed 5 s after creation (SANDBOX_REVIEW_DELAY_SECONDS), expired 30 days after approval.
  const approvedAt = later(plus(created.updatedAt!, 5000), moved.previousNow);
  const expiredAt = plus(approvedAt, 30 * DAY_MS);
  const history = await partner.historyEntries(created.id);
  expect(history.map((entry) => [entry.creator, entry.status.code, entry.createdAt])).toEqual([
    [expect.anything(), 'under_review', created.createdAt],
    [REVIEWER, 'approved', approvedAt],
    [SYSTEM, 'expired', expiredAt],
  ]);
  const current = await partner.current(created.id);
  expect(current).toMatchObject({ status: 'expired', updatedAt: expiredAt });
  expect(current.etag).toBe('W/"3"');

  const events = await eventsOf(world, created.id);
  expect(events.map((event) => [event.type, event.data.status, event.occurredAt])).toEqual([
    ['rental_insurance.status_changed', 'under_review', expect.any(String)],
    ['rental_insurance.status_changed', 'approved', approvedAt],
    ['rental_insurance.status_changed', 'expired', expiredAt],
  ]);

  // Nothing of the other guarantee moved: same version, wall clock, no history of its own.
  expect(await partner.current(neighbour.id)).toMatchObject({ status: 'under_review', updatedAt: neighbour.updatedAt });
  expect(await clockOffset(world, neighbour.id)).toBe(0n);
  expect(await partner.historyEntries(neighbour.id)).toHaveLength(1);

  // The scheduler, a month later on the wall clock, applies nothing twice to the travelled guarantee.
  await runSchedulerOnce(world.db, world.config, scheduledJobs(world.config), new Date(Date.now() + 40 * DAY_MS));
  expect(await partner.historyEntries(created.id)).toHaveLength(3);
  expect((await partner.current(neighbour.id)).status).not.toBe('under_review');
});

test('When the clock was advanced part of the way, then the scheduler takes the next step when the guarantee’s own time is due, stamped with that time', async () => {
  const created = await partner.newGuarantee();
  const moved = await advance(partner, created.id, { by: 'P29D' });
  expect(moved.rentalInsurance.status).toBe('approved');
  const offset = Number(await clockOffset(world, created.id));
  expect(offset).toBeGreaterThanOrEqual(29 * DAY_MS - 1000);

  // Nothing due yet on its own clock, though the wall clock's scheduler runs now.
  expect(totalProcessed(await runSchedulerOnce(world.db, world.config, scheduledJobs(world.config)))).toBe(0);
  // Two wall-clock days later its own time is past the 30 days of validity: it expires, at its own time.
  const wall = Date.now() + 2 * DAY_MS;
  await runSchedulerOnce(world.db, world.config, scheduledJobs(world.config), new Date(wall));
  const history = await partner.historyEntries(created.id);
  expect(history.map((entry) => entry.status.code)).toEqual(['under_review', 'approved', 'expired']);
  const expiredAt = new Date(history[2]!.createdAt!).getTime();
  // Stamped by the guarantee's clock (wall clock now + offset), not the wall clock.
  expect(expiredAt).toBeGreaterThanOrEqual(Date.now() + offset - 60_000);
  expect(expiredAt).toBeLessThanOrEqual(Date.now() + offset + 1000);
});

test('When a travelled guarantee is commented by the partner or by staff, then the entries and their events carry its own time', async () => {
  const created = await partner.newGuarantee();
  const moved = await advance(partner, created.id, { by: 'P100D' });
  // The guarantee's own clock: the wall clock plus what the call added.
  const offset = new Date(moved.now).getTime() - new Date(moved.previousNow).getTime();
  const own = () => Date.now() + offset;

  const before = own();
  const mine = await partner.comment(created.id, 'Tenant called.');
  const staff = await ops.post(guaranteePath(created.id, 'comments'), { comment: 'Noted.' });
  const after = own();
  expect([mine.status, staff.status]).toEqual([201, 201]);
  for (const entry of [mine.body, staff.body]) {
    expect(new Date(entry.createdAt).getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(new Date(entry.createdAt).getTime()).toBeLessThanOrEqual(after + 1000);
  }
  // The feed shows an event once every transaction that began before it has ended (a few
  // seconds at most under load): poll for both.
  const comments = await waitFor(
    async () => (await eventsOf(world, created.id)).filter((event) => event.type === 'rental_insurance.comment_added'),
    (found) => found.length >= 2,
    { withinMs: 15_000, everyMs: 200 },
  );
  expect(comments.map((event) => event.occurredAt)).toEqual([mine.body.createdAt, staff.body.createdAt]);
});
