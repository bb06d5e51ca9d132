/**
 * Bulk redelivery (issue 26 item 5): after its receiver's outage, a partner queues every failed
 * delivery of an endpoint since a time in one call. Each is a normal attempt (same webhook-id,
 * signed), at most `limit` per call with `more` saying to call again, a repeat queues nothing twice,
 * deliveries at their 50 attempts are counted and left alone, a disabled endpoint is refused, and
 * nothing of another endpoint or agency moves.
 */
import { expectErrorBody } from '../support/error-body';
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { startReceiver, verify, webhookClient, type Receiver } from './webhook-support';
import { waitFor } from '../support/wait-for';

// Four attempts 200 ms apart, then a delivery is failed.
const world = useTestApp(
  { WEBHOOK_DELIVERY_CONCURRENCY: '4', WEBHOOK_RETRY_SCHEDULE_MS: '200,200,200', SCHEDULER_INTERVAL_MS: '0' },
  { agencies: 2 },
);
const partner = asPartner(world, () => world.agencies[0]!);
const hooks = webhookClient(world, () => world.agencies[0]!);
const statusEvents = ['rental_insurance.status_changed'];

async function freshReceiver(): Promise<Receiver> {
  const receiver = await startReceiver();
  world.beforeClose(() => receiver.close());
  return receiver;
}

type Delivery = { id: string; eventId: string; status: string; attemptCount: number };

/** The endpoint's deliveries once none is pending (polling), newest first. */
async function settled(endpointId: string, count: number): Promise<Delivery[]> {
  const page = await waitFor(
    async () => (await hooks.deliveries(endpointId, { pageSize: 50 })).body._embedded.webhookDeliveries as Delivery[],
    (deliveries) => deliveries.length === count && deliveries.every((delivery) => delivery.status !== 'pending'),
    { withinMs: 15_000, everyMs: 100 },
  );
  expect({ deliveries: page.length, pending: page.filter((delivery) => delivery.status === 'pending').length }).toEqual({
    deliveries: count,
    pending: 0,
  });
  return page;
}

/** An endpoint whose receiver answered 503 to every attempt of `events` new guarantees: that many failed deliveries. */
async function endpointAfterOutage(events: number) {
  const receiver = await freshReceiver();
  const endpoint = await hooks.register(receiver.url, statusEvents);
  receiver.script.push(...Array<number>(events * 4).fill(503));
  for (let i = 0; i < events; i++) await partner.newGuarantee();
  const failed = await settled(endpoint.id, events);
  expect(failed.map((delivery) => [delivery.status, delivery.attemptCount])).toEqual(Array(events).fill(['failed', 4]));
  return { receiver, endpoint, failed };
}

describe('When a receiver was down and its deliveries failed', () => {
  it('then one call per `limit` queues them again, oldest first, and each arrives with its own webhook-id', async () => {
    const since = new Date().toISOString();
    const { receiver, endpoint, failed } = await endpointAfterOutage(3);
    const receivedBefore = receiver.received.length;

    const first = await hooks.redeliverFailed(endpoint.id, { since, limit: 2 });
    expect(first.status).toBe(202);
    expect(first.body).toEqual({ redelivered: 2, atAttemptLimit: 0, more: true });
    // Oldest first: the newest failed delivery waits for the next call.
    expect((await world.db.webhookDelivery.findUniqueOrThrow({ where: { id: failed[0]!.id } })).status).toBe('failed');
    const second = await hooks.redeliverFailed(endpoint.id, { since, limit: 2 });
    expect(second.body).toEqual({ redelivered: 1, atAttemptLimit: 0, more: false });

    const received = await receiver.waitFor((all) => all.length >= receivedBefore + 3);
    const again = received.slice(receivedBefore);
    expect(again.map((r) => r.headers['webhook-id']).sort()).toEqual(failed.map((delivery) => delivery.eventId).sort());
    for (const delivery of again) expect(verify(endpoint.secret, delivery)).toEqual(delivery.event);
    const after = await settled(endpoint.id, 3);
    expect(after.map((delivery) => [delivery.status, delivery.attemptCount])).toEqual(Array(3).fill(['succeeded', 5]));

    // Nothing is failed any more: a third call queues nothing and nothing more is sent.
    const third = await hooks.redeliverFailed(endpoint.id, { since });
    expect(third.body).toEqual({ redelivered: 0, atAttemptLimit: 0, more: false });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received).toHaveLength(receivedBefore + 3);
  });

  it('then a retry with the same Idempotency-Key replays the answer and queues nothing again', async () => {
    const since = new Date().toISOString();
    const { receiver, endpoint } = await endpointAfterOutage(1);
    const receivedBefore = receiver.received.length;
    const first = await hooks.redeliverFailed(endpoint.id, { since }, 'bulk-redelivery-key-1');
    await receiver.waitFor((all) => all.length >= receivedBefore + 1);
    await settled(endpoint.id, 1);
    const replay = await hooks.redeliverFailed(endpoint.id, { since }, 'bulk-redelivery-key-1');
    expect(replay.status).toBe(202);
    expect(replay.headers['idempotent-replay']).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(first.body).toEqual({ redelivered: 1, atAttemptLimit: 0, more: false });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received).toHaveLength(receivedBefore + 1);
  });

  it('then only the range is queued: a delivery created before `since`, or at `until` and later, stays failed', async () => {
    const { endpoint, failed } = await endpointAfterOutage(2);
    const [newer, older] = failed;
    const rows = await world.db.webhookDelivery.findMany({ where: { id: { in: [newer!.id, older!.id] } } });
    const createdAt = new Map(rows.map((row) => [row.id, row.createdAt.getTime()]));
    const answer = await hooks.redeliverFailed(endpoint.id, {
      since: new Date(createdAt.get(older!.id)! + 1).toISOString(),
      until: new Date(createdAt.get(newer!.id)! + 1).toISOString(),
    });
    expect(answer.body).toEqual({ redelivered: 1, atAttemptLimit: 0, more: false });
    const after = await settled(endpoint.id, 2);
    expect(after.find((delivery) => delivery.id === older!.id)).toMatchObject({ status: 'failed', attemptCount: 4 });
    expect(after.find((delivery) => delivery.id === newer!.id)).toMatchObject({ status: 'succeeded', attemptCount: 5 });
  });

  it('then a delivery with 50 attempts is counted in atAttemptLimit and left failed', async () => {
    const since = new Date().toISOString();
    const { endpoint, failed } = await endpointAfterOutage(2);
    const capped = failed[0]!;
    await world.db.$executeRaw`INSERT INTO webhook_attempts (delivery_id, response_status, latency_ms, error)
      SELECT ${capped.id}::uuid, 503, 5, 'HTTP 503' FROM generate_series(1, 46)`;
    const answer = await hooks.redeliverFailed(endpoint.id, { since });
    expect(answer.body).toEqual({ redelivered: 1, atAttemptLimit: 1, more: false });
    const after = await settled(endpoint.id, 2);
    expect(after.find((delivery) => delivery.id === capped.id)).toMatchObject({ status: 'failed', attemptCount: 50 });
  });

  it('then a disabled endpoint is 409 webhook_endpoint_disabled until it is enabled again, and its deliveries stay failed', async () => {
    const since = new Date().toISOString();
    const { endpoint } = await endpointAfterOutage(1);
    const current = await hooks.get(endpoint.id);
    const disabled = await hooks.patch(endpoint.id, { enabled: false }, current.headers['etag'] as string);
    expect(disabled.status).toBe(200);
    expectErrorBody(await hooks.redeliverFailed(endpoint.id, { since }), 409, 'webhook_endpoint_disabled');
    expect((await world.db.webhookDelivery.findMany({ where: { endpointId: endpoint.id } })).map((row) => row.status)).toEqual(['failed']);
    const enabled = await hooks.patch(endpoint.id, { enabled: true }, disabled.headers['etag'] as string);
    expect(enabled.status).toBe(200);
    expect((await hooks.redeliverFailed(endpoint.id, { since })).body).toEqual({ redelivered: 1, atAttemptLimit: 0, more: false });
  });
});

describe('When the request is wrong', () => {
  it('then a bad range, limit or body is 400 and changes nothing; another agency sees 404', async () => {
    const { endpoint } = await endpointAfterOutage(1);
    const since = '2026-01-01T00:00:00Z';
    expectErrorBody(await hooks.redeliverFailed(endpoint.id, { since, until: '2025-12-31T00:00:00Z' }), 400, 'bad_request');
    for (const body of [{}, { since, limit: 0 }, { since, limit: 501 }, { since: 'yesterday' }, { since, extra: 1 }]) {
      expectErrorBody(await hooks.redeliverFailed(endpoint.id, body), 400, 'validation_failed');
    }
    const other = webhookClient(world, () => world.agencies[1]!);
    expectErrorBody(await other.redeliverFailed(endpoint.id, { since }), 404, 'not_found');
    expect((await world.db.webhookDelivery.findMany({ where: { endpointId: endpoint.id } })).map((row) => row.status)).toEqual(['failed']);
  });
});
