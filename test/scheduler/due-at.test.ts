/**
 * Every scheduler job says from when a guarantee is due (`dueAt`, used by sandbox time travel and
 * by the sandbox scheduler for time-travelled guarantees) and, separately, which guarantees are
 * eligible at a time (`eligible`, written for the indexes). The two must agree, or time travel
 * would apply a step the scheduler would not (or miss one): checked on guarantees in every state
 * a job looks at, at times around each step.
 */
import { Prisma } from '../../src/generated/prisma/client';
import { sandboxJobs } from '../../src/sandbox/sandbox-jobs';
import { timeDrivenJobs } from '../../src/guarantees/transitions/time-driven';
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { advance, DAY_MS } from '../sandbox/time-travel-support';

const world = useTestApp({ ENVIRONMENT: 'sandbox' }, { agencies: 1 });
const partner = asPartner(world);

test('When a job is asked which guarantees are eligible at a time, then they are exactly those due by then', async () => {
  const fresh = await partner.newGuarantee();
  const approved = await partner.newGuarantee();
  await advance(partner, approved.id, { by: 'PT10S' });
  const expiring = await partner.newGuarantee({ rentalAmount: 3500.04 });
  await advance(partner, expiring.id, { by: 'PT10S' });
  const pending = await partner.newGuarantee();
  await advance(partner, pending.id, { by: 'PT10S' });
  await partner.accept(pending.id).expect(200);
  const awaiting = await partner.newGuarantee();
  await advance(partner, awaiting.id, { by: 'PT10S' });
  await partner.accept(awaiting.id).expect(200);
  await advance(partner, awaiting.id, { by: 'PT6S' });
  const active = await partner.newGuarantee();
  await advance(partner, active.id, { by: 'PT10S' });
  await partner.accept(active.id).expect(200);
  expect((await advance(partner, active.id, { by: 'PT1M' })).rentalInsurance.status).toBe('active');
  const terminated = await partner.newGuarantee();
  await advance(partner, terminated.id, { by: 'PT10S' });
  await partner.accept(terminated.id).expect(200);
  await advance(partner, terminated.id, { by: 'PT1M' });
  expect((await advance(partner, terminated.id, { by: 'P1000D' })).rentalInsurance.status).toBe('terminated');

  const ids = [fresh, approved, expiring, pending, awaiting, active, terminated].map((guarantee) => BigInt(guarantee.id));
  const rows = await world.db.rentalInsurance.findMany({
    where: { id: { in: ids } },
    select: { updatedAt: true, approvedAt: true, terminatedAt: true },
  });
  // Around every stored time a job counts from, and far ahead.
  const anchors = rows.flatMap((row) => [row.updatedAt, row.approvedAt, row.terminatedAt]).filter((time): time is Date => time !== null);
  const offsets = [0, 4_999, 5_000, 5_001, 60_000, 30 * DAY_MS, 31 * DAY_MS, 365 * DAY_MS, 1000 * DAY_MS, 1400 * DAY_MS];
  const times = anchors.flatMap((anchor) => offsets.map((offset) => new Date(anchor.getTime() + offset)));

  const disagreements: string[] = [];
  const eligibleSeen: Record<string, number> = {};
  for (const job of [...timeDrivenJobs(world.config), ...sandboxJobs(world.config)]) {
    for (const now of times) {
      const found = await world.db.$queryRaw<Array<{ id: bigint; eligible: boolean; due: boolean | null }>>`
        SELECT r.id, (${job.eligible(now)}) AS eligible, (${job.dueAt} <= ${now}::timestamptz) AS due
        FROM rental_insurances r WHERE r.id IN (${Prisma.join(ids)})`;
      eligibleSeen[job.name] = (eligibleSeen[job.name] ?? 0) + found.filter((row) => row.eligible).length;
      for (const row of found)
        if (row.eligible !== (row.due ?? false))
          disagreements.push(`${job.name} at ${now.toISOString()}: guarantee ${row.id} eligible ${row.eligible}, due ${row.due}`);
    }
  }
  expect(disagreements).toEqual([]);
  // Each job found some guarantee eligible at some time: the comparison is not vacuous.
  for (const [job, count] of Object.entries(eligibleSeen)) expect([job, count > 0]).toEqual([job, true]);
});
