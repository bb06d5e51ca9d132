/**
 * Delivery failures and endpoint management: retries keep the webhook-id, Retry-After and 410 Gone
 * are honoured, a rotated secret signs alongside the new one, test events and redeliveries, and
 * PATCH under If-Match.
 */
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { startReceiver, verify, webhookClient, type Receiver } from './webhook-support';
import { waitFor } from '../support/wait-for';

const world = useTestApp(
  { WEBHOOK_DELIVERY_CONCURRENCY: '2', WEBHOOK_RETRY_SCHEDULE_MS: '200,200,200', SCHEDULER_INTERVAL_MS: '0' },
  { agencies: 1 },
);
const partner = asPartner(world);
const hooks = webhookClient(world, () => world.agency);
let receiver: Receiver;

beforeEach(async () => {
  // Each test's own receiver is closed (a closure over `receiver` would close only the last one, 8 times).
  const current = await startReceiver();
  receiver = current;
  world.beforeClose(() => current.close());
});

const statusEvents = ['rental_insurance.status_changed'];

describe('When the receiver fails', () => {
  it('then 500 twice then 200 delivers the same webhook-id three times, and the log shows each attempt', async () => {
    const endpoint = await hooks.register(receiver.url, statusEvents);
    receiver.script.push(500, 500);
    await partner.newGuarantee();
    const received = await receiver.waitFor((all) => all.length >= 3);
    expect(new Set(received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    for (const delivery of received) expect(verify(endpoint.secret, delivery)).toEqual(received[0]!.event);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received).toHaveLength(3);
    const log = await hooks.deliveries(endpoint.id);
    const [delivery] = log.body._embedded.webhookDeliveries;
    expect(delivery).toMatchObject({ status: 'succeeded', eventId: received[0]!.event.id, nextAttemptAt: null });
    expect(delivery.attempts.map((a: { responseStatus: number }) => a.responseStatus)).toEqual([500, 500, 200]);
    expect(delivery.attempts[0].error).toBe('HTTP 500');
    expect((await hooks.get(endpoint.id)).body.failingSince).toBeNull();
  });

  it('then a delivery whose retries are spent is failed, and a redelivery sends it again with the same id', async () => {
    const endpoint = await hooks.register(receiver.url, statusEvents);
    receiver.script.push(503, 503, 503, 503);
    await partner.newGuarantee();
    await receiver.waitFor((all) => all.length >= 4);
    const delivery = await waitFor(
      async () => (await hooks.deliveries(endpoint.id)).body._embedded.webhookDeliveries[0] as { id: string; status: string } | undefined,
      (first) => first?.status === 'failed',
      { withinMs: 4_000, everyMs: 100 },
    );
    expect(delivery?.status).toBe('failed');
    expect((await hooks.get(endpoint.id)).body.failingSince).not.toBeNull();
    const again = await hooks.redeliver(endpoint.id, delivery!.id);
    expect(again.status).toBe(202);
    expect(again.body.status).toBe('pending');
    const received = await receiver.waitFor((all) => all.length >= 5);
    expect(received[4]!.headers['webhook-id']).toBe(received[0]!.headers['webhook-id']);
  });

  it('then a Retry-After longer than the schedule delays the next attempt', async () => {
    await hooks.register(receiver.url, statusEvents);
    receiver.script.push({ status: 429, headers: { 'Retry-After': '2' } });
    await partner.newGuarantee();
    await receiver.waitFor((all) => all.length >= 1);
    const first = Date.now();
    await receiver.waitFor((all) => all.length >= 2, 10_000);
    expect(Date.now() - first).toBeGreaterThanOrEqual(1500);
  });

  it('then 410 Gone disables the endpoint at once; PATCH enabled: true turns it back on', async () => {
    const endpoint = await hooks.register(receiver.url, statusEvents);
    receiver.script.push(410);
    await partner.newGuarantee();
    await receiver.waitFor((all) => all.length >= 1);
    const read = await waitFor(
      () => hooks.get(endpoint.id),
      (answer) => !answer.body.enabled,
      { withinMs: 4_000, everyMs: 100 },
    );
    expect(read.body).toMatchObject({ enabled: false, disabledReason: 'gone' });
    await partner.newGuarantee();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received).toHaveLength(1);
    const stale = await hooks.patch(endpoint.id, { enabled: true }, 'W/"999"');
    expect(stale.status).toBe(412);
    const enabled = await hooks.patch(endpoint.id, { enabled: true }, read.headers['etag'] as string);
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
    expect(enabled.headers['etag']).not.toBe(read.headers['etag']);
    await partner.newGuarantee();
    await receiver.waitFor((all) => all.length >= 2);
  });
});

describe('When an endpoint has been failing for days', () => {
  it('then the next failed attempt disables it (failing), and its delivery is not retried', async () => {
    const endpoint = await hooks.register(receiver.url, statusEvents);
    // Every attempt since 6 days ago failed (WEBHOOK_DISABLE_AFTER_DAYS is 5 by default).
    await world.db.webhookEndpoint.update({ where: { id: endpoint.id }, data: { failingSince: new Date(Date.now() - 6 * 86_400_000) } });
    receiver.script.push(500);
    await partner.newGuarantee();
    await receiver.waitFor((all) => all.length >= 1);
    const read = await waitFor(
      () => hooks.get(endpoint.id),
      (answer) => !answer.body.enabled,
      { withinMs: 4_000, everyMs: 100 },
    );
    expect(read.body).toMatchObject({ enabled: false, disabledReason: 'failing' });
    const [delivery] = (await hooks.deliveries(endpoint.id)).body._embedded.webhookDeliveries;
    expect(delivery).toMatchObject({ status: 'failed', nextAttemptAt: null });
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(receiver.received).toHaveLength(1);
  });
});

describe('When the agency manages an endpoint', () => {
  it('then a rotated secret is shown once, and both secrets sign for 24 hours', async () => {
    const endpoint = await hooks.register(receiver.url, statusEvents);
    const rotated = await hooks.rotate(endpoint.id, 'rotate-1');
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    expect(Date.parse(rotated.body.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(23 * 3_600_000);
    const replay = await hooks.rotate(endpoint.id, 'rotate-1');
    expect(replay.body.secret).toBeNull();
    await partner.newGuarantee();
    const [delivery] = await receiver.waitFor((all) => all.length >= 1);
    expect(delivery!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verify(rotated.body.secret, delivery!)).toEqual(delivery!.event);
    expect(verify(endpoint.secret, delivery!)).toEqual(delivery!.event);
    expect(() => verify('whsec_' + Buffer.alloc(32, 7).toString('base64'), delivery!)).toThrow();
  });

  it('then a test event reaches only that endpoint and stays out of the feed', async () => {
    const endpoint = await hooks.register(receiver.url, statusEvents);
    const sent = await hooks.test(endpoint.id);
    expect(sent.status).toBe(202);
    expect(sent.body).toMatchObject({ eventType: 'webhook.test', status: 'pending', attempts: [] });
    const [delivery] = await receiver.waitFor((all) => all.length >= 1);
    expect(verify(endpoint.secret, delivery!)).toMatchObject({ type: 'webhook.test', data: { endpointId: endpoint.id } });
    const feed = await hooks.events({ limit: 200 });
    expect((feed.body._embedded.events as Array<{ id: string }>).map((e) => e.id)).not.toContain(sent.body.eventId);
  });

  it('then the list pages the endpoints, PATCH changes the types, and DELETE stops deliveries', async () => {
    const endpoint = await hooks.register(receiver.url, ['rental_insurance.comment_added']);
    const list = await hooks.list({ pageSize: 200 });
    expect(list.status).toBe(200);
    expect(list.body._embedded.webhookEndpoints.map((e: { id: string }) => e.id)).toContain(endpoint.id);
    const changed = await hooks.patch(endpoint.id, { eventTypes: statusEvents, description: 'ERP' }, endpoint.etag);
    expect(changed.body).toMatchObject({ eventTypes: statusEvents, description: 'ERP' });
    expect((await hooks.patch(endpoint.id, { url: 'ftp://example.com/x' }, changed.headers['etag'] as string)).status).toBe(400);
    expect((await hooks.remove(endpoint.id)).status).toBe(204);
    expect((await hooks.remove(endpoint.id)).status).toBe(404);
    await partner.newGuarantee();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received).toEqual([]);
  });
});
