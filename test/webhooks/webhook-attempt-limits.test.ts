/**
 * A delivery has at most 50 attempts (issue 23 item 1): redeliveries past the cap are
 * `409 redelivery_limit_reached`, so no partner can grow one delivery's log without end. The
 * attempts are stored directly (each attempt is a real POST elsewhere in the suite; here only the
 * count matters), no delivery worker runs.
 */
import { expectErrorBody } from '../support/error-body';
import { useTestApp } from '../support/test-app';
import { webhookClient } from './webhook-support';

const world = useTestApp({}, { agencies: 1 });
const hooks = webhookClient(world, () => world.agency);

async function storeAttempts(deliveryId: string, count: number): Promise<void> {
  await world.db.$executeRaw`INSERT INTO webhook_attempts (delivery_id, response_status, latency_ms, error)
    SELECT ${deliveryId}::uuid, 503, 5, 'HTTP 503' FROM generate_series(1, ${count}::int)`;
}

describe('When a delivery has 49 attempts', () => {
  it('then one more redelivery is queued, and once it has 50 a redelivery is 409 redelivery_limit_reached', async () => {
    const endpoint = await hooks.register('http://127.0.0.1:9/hooks');
    const sent = await hooks.test(endpoint.id);
    const deliveryId = sent.body.id as string;
    await storeAttempts(deliveryId, 49);

    const queued = await hooks.redeliver(endpoint.id, deliveryId);
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ id: deliveryId, status: 'pending', attemptCount: 49 });

    await storeAttempts(deliveryId, 1);
    const refused = await hooks.redeliver(endpoint.id, deliveryId);
    expectErrorBody(refused, 409, 'redelivery_limit_reached');
    const listed = await hooks.deliveries(endpoint.id);
    expect(listed.body._embedded.webhookDeliveries[0]).toMatchObject({ id: deliveryId, attemptCount: 50 });
    expect(listed.body._embedded.webhookDeliveries[0].attempts).toHaveLength(20);
  });
});
