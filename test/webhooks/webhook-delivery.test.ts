/**
 * Events and signed webhooks end to end: an agency registers an endpoint on a local receiver; the
 * partner's writes, the back office's moves and the activation's ledger postings each deliver
 * their events, signed (verified with the standardwebhooks library) and valid against the
 * document's `webhooks` schemas; another agency's receiver gets none of them.
 */
import * as review from '../../src/guarantees/transitions/review-actions';
import { inUnitOfWork } from '../../src/database/unit-of-work';
import { asPartner } from '../support/partner-api';
import { backOffice } from '../support/back-office';
import { useTestApp } from '../support/test-app';
import { ALL_TYPES, payloadProblems, startReceiver, verify, webhookClient, type Received, type Receiver } from './webhook-support';

const world = useTestApp(
  { WEBHOOK_DELIVERY_CONCURRENCY: '4', WEBHOOK_RETRY_SCHEDULE_MS: '300,300,300', SCHEDULER_INTERVAL_MS: '0' },
  { agencies: 2 },
);
const partnerA = asPartner(world, () => world.agencies[0]!);
const hooksA = webhookClient(world, () => world.agencies[0]!);
const hooksB = webhookClient(world, () => world.agencies[1]!);
let receiverA: Receiver;
let receiverB: Receiver;

beforeAll(async () => {
  receiverA = await startReceiver();
  receiverB = await startReceiver();
  world.beforeClose(() => receiverA.close());
  world.beforeClose(() => receiverB.close());
});

describe('When an agency registers an endpoint', () => {
  it('then 201 shows the secret once, with ETag and Location; reads and a replay never show it', async () => {
    const key = 'register-once';
    const created = await hooksA.create({ url: receiverA.url, eventTypes: ['rental_insurance.comment_added'] }, key);
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,60}$/);
    expect(created.headers['etag']).toBe('W/"1"');
    expect(created.headers['location']).toMatch(new RegExp(`/v1/webhook-endpoints/${created.body.id}$`));
    const replay = await hooksA.create({ url: receiverA.url, eventTypes: ['rental_insurance.comment_added'] }, key);
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replay']).toBe('true');
    expect(replay.body).toEqual({ ...created.body, secret: null });
    const read = await hooksA.get(created.body.id);
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('secret');
    expect(read.body).toMatchObject({ url: receiverA.url, enabled: true, disabledReason: null, eventTypes: ['rental_insurance.comment_added'] });
    expect((await hooksB.get(created.body.id)).status).toBe(404);
    expect((await hooksA.remove(created.body.id)).status).toBe(204);
    expect((await hooksA.get(created.body.id)).status).toBe(404);
  });

  it('then a credential without ri:webhooks:manage gets 403, and one without ri:events:read cannot read the feed', async () => {
    const reader = await world.newAgency({ scopes: ['ri:rental-insurances:read'] });
    const client = webhookClient(world, reader);
    expect((await client.list()).status).toBe(403);
    expect((await client.events()).status).toBe(403);
  });
});

describe('When guarantees change while endpoints are registered', () => {
  it('then every event type reaches agency A signed and valid, and agency B receives none of them', async () => {
    const a = await hooksA.register(receiverA.url);
    await hooksB.register(receiverB.url);
    const office = backOffice(world);

    const guarantee = await partnerA.newGuarantee();
    expect((await partnerA.comment(guarantee.id, 'Documents sent by e-mail.')).status).toBe(201);
    await office.approve(guarantee.id);
    expect((await partnerA.accept(guarantee.id)).status).toBe(200);
    const accepted = await partnerA.current(guarantee.id);
    const patched = await partnerA.patch(guarantee.id, { tenant: { email: 'new.address@example.com' } }, { ifMatch: accepted.etag });
    expect(patched.status).toBe(200);
    expect(patched.headers['service-effects']).toContain('contract_reissued');
    await office.envelopeReady(guarantee.id);
    for (const record of await partnerA.signatureRecords(guarantee.id)) await office.sign(guarantee.id, record.role, record.cpfCnpj);
    expect((await partnerA.current(guarantee.id)).status).toBe('active');

    // Deliveries run 4 at once and in no set order: wait for every type and for the last transition.
    const transitions = (all: Received[]) =>
      all
        .filter((r) => r.event.type === 'rental_insurance.status_changed' && r.event.data['rentalInsurance'] !== undefined)
        .map((r) => [r.event.data['previousStatus'], r.event.data['status']]);
    const received = await receiverA.waitFor(
      (all) =>
        ALL_TYPES.every((type) => all.some((r) => r.event.type === type)) &&
        transitions(all).some(([previous, status]) => previous === 'accepted' && status === 'active'),
    );
    for (const delivery of received) {
      expect(verify(a.secret, delivery)).toEqual(delivery.event);
      expect(delivery.headers['webhook-id']).toBe(delivery.event.id);
      expect(payloadProblems(delivery.event)).toEqual([]);
      expect(delivery.event.agencyId).toBe(world.agencies[0]!.companyId);
    }
    expect(transitions(received)).toEqual(
      expect.arrayContaining([
        [null, 'under_review'],
        ['under_review', 'approved'],
        ['approved', 'accepted'],
        ['accepted', 'active'],
      ]),
    );
    const comment = received.find((r) => r.event.type === 'rental_insurance.comment_added')!;
    expect(comment.event.data).toMatchObject({ rentalInsuranceId: guarantee.id, historyEntry: { comment: 'Documents sent by e-mail.' } });

    // The feed lists the same events (same ids), and B's receiver got nothing of A's.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiverB.received).toEqual([]);
    const feed = await hooksA.events({ limit: 200 });
    expect(feed.status).toBe(200);
    const feedIds = (feed.body._embedded.events as Array<{ id: string }>).map((event) => event.id);
    for (const delivery of received) expect(feedIds).toContain(delivery.event.id);
    const feedB = await hooksB.events({ limit: 200 });
    expect(feedB.body._embedded.events).toEqual([]);

    // The receiver may have what the wait asked for while later deliveries (the activation's
    // statement entries) still queue behind the endpoint's share of slots: read the log once none is pending.
    let log = await hooksA.deliveries(a.id, { pageSize: 200 });
    for (
      let waited = 0;
      waited < 15_000 && log.body._embedded.webhookDeliveries.some((d: { status: string }) => d.status === 'pending');
      waited += 200
    ) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      log = await hooksA.deliveries(a.id, { pageSize: 200 });
    }
    expect(log.status).toBe(200);
    expect(log.body._embedded.webhookDeliveries.length).toBeGreaterThanOrEqual(received.length);
    expect(log.body._embedded.webhookDeliveries[0]).toMatchObject({ status: 'succeeded', attempts: [{ responseStatus: 200, error: null }] });
    expect(JSON.stringify(log.body)).not.toContain('whsec_');
    expect((await hooksA.remove(a.id)).status).toBe(204);
  });

  it('then a write that rolls back emits nothing and delivers nothing', async () => {
    const before = await world.db.event.count();
    const deliveriesBefore = await world.db.webhookDelivery.count();
    await hooksA.register(receiverA.url);
    const guarantee = await partnerA.newGuarantee();
    const afterCreate = await world.db.event.count();
    await expect(
      inUnitOfWork(world.db, async (unit) => {
        await review.approve(
          unit,
          await review.lockForReview(unit.db, BigInt(guarantee.id)),
          { name: 'Ana', serviceAccount: false },
          {
            installmentAmountCents: 100n,
            coverageLimitCents: 1000n,
            rentCoverageLimitCents: 1000n,
            startBillingDate: '2026-12-01',
          },
        );
        await unit.flush(); // its event and delivery are written, then rolled back
        throw new Error('rolled back on purpose');
      }),
    ).rejects.toThrow('rolled back on purpose');
    // An HTTP write refused by the status machine (409) emits nothing either.
    expect((await partnerA.accept(guarantee.id)).status).toBe(409);
    expect(afterCreate).toBe(before + 1);
    expect(await world.db.event.count()).toBe(afterCreate);
    expect(await world.db.webhookDelivery.count()).toBe(deliveriesBefore + 1);
  });
});
