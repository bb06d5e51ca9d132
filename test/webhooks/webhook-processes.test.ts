/**
 * Delivery does not depend on the process that made the change: an event committed by a process
 * that delivers nothing (as if it died right after COMMIT) is delivered by another one; with two
 * delivering processes on one database every attempt is made once (pg-boss's SKIP LOCKED);
 * and the sandbox reviewer's moves emit the same events as anyone's.
 */
import { runSchedulerOnce } from '../../src/scheduler/scheduler';
import { scheduledJobs } from '../../src/sandbox/lifecycle-jobs';
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { startReceiver, verify, webhookClient, type Received } from './webhook-support';

// This world's own app makes the changes and delivers nothing (WEBHOOK_DELIVERY_CONCURRENCY 0).
const world = useTestApp({ SCHEDULER_INTERVAL_MS: '0' }, { agencies: 1 });
const partner = asPartner(world);
const hooks = webhookClient(world, () => world.agency);
const deliverer = { WEBHOOK_DELIVERY_CONCURRENCY: '4', SCHEDULER_INTERVAL_MS: '0' };

describe('When the process that committed an event never delivers it', () => {
  it('then another process delivers it, and two delivering processes make each attempt once', async () => {
    const receiver = await startReceiver();
    world.beforeClose(() => receiver.close());
    const endpoint = await hooks.register(receiver.url, ['rental_insurance.status_changed', 'rental_insurance.comment_added']);
    const created = await Promise.all(Array.from({ length: 10 }, () => partner.newGuarantee()));
    for (const guarantee of created) expect((await partner.comment(guarantee.id, 'hello')).status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toEqual([]);

    await world.anotherApp(deliverer);
    await world.anotherApp(deliverer);
    await receiver.waitFor((all) => all.length >= 20);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const ids = receiver.received.map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(20);
    expect(new Set(ids).size).toBe(20);
    for (const delivery of receiver.received) expect(verify(endpoint.secret, delivery)).toEqual(delivery.event);
    const attempts = await world.db.webhookAttempt.count();
    expect(attempts).toBe(20);
  });
});

describe('When the sandbox reviewer decides', () => {
  it('then its decision is delivered like a reviewer’s', async () => {
    const receiver = await startReceiver();
    world.beforeClose(() => receiver.close());
    await hooks.register(receiver.url, ['rental_insurance.status_changed']);
    const guarantee = await partner.newGuarantee({ rentalAmount: 3500 });
    // The scheduler run of a service process, 30 s later: the sandbox reviewer approves.
    await runSchedulerOnce(world.db, world.config, scheduledJobs(world.config), new Date(Date.now() + 30_000));
    const ofGuarantee = (r: Received) => (r.event.data['rentalInsurance'] as { id: number }).id === guarantee.id;
    const received = await receiver.waitFor((all) => all.some((r) => ofGuarantee(r) && r.event.data['status'] === 'approved'), 20_000);
    const approved = received.find((r) => ofGuarantee(r) && r.event.data['status'] === 'approved')!;
    expect(approved.event.data).toMatchObject({ previousStatus: 'under_review', rentalInsurance: { id: guarantee.id, status: 'approved' } });
  });
});
