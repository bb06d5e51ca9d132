/**
 * An attempt is recorded before its request (issue 24 item 2), and only the process that still
 * holds the delivery completes it: a later attempt's start marks an earlier row never completed as
 * interrupted, after which the earlier process's outcome changes nothing (neither the row nor the
 * delivery nor the queue); a row left started for longer than any attempt lasts reads as
 * interrupted. The store's statements run here on the real database, no delivery worker runs; the
 * partner's listings show each state as openapi/partner.yaml declares it.
 */
import { INTERRUPTED_ERROR, IN_PROGRESS_ERROR } from '../../src/webhooks/attempt-outcome';
import { failDelivery, recordAttempt, startAttempt, type AttemptRecord } from '../../src/webhooks/delivery-store';
import request from 'supertest';
import { useTestApp } from '../support/test-app';
import { ENDPOINTS, webhookClient } from './webhook-support';

const world = useTestApp({}, { agencies: 1 });
const hooks = webhookClient(world, () => world.agency);

async function newDelivery() {
  const endpoint = await hooks.register('http://127.0.0.1:9/hooks');
  const sent = await hooks.test(endpoint.id);
  expect(sent.status).toBe(202);
  return { endpointId: endpoint.id, deliveryId: sent.body.id as string };
}

function outcome(ids: { endpointId: string; deliveryId: string }, responseStatus: number): AttemptRecord {
  const succeeded = responseStatus < 300;
  return {
    ...ids,
    responseStatus,
    latencyMs: 12,
    error: succeeded ? null : `HTTP ${responseStatus}`,
    status: succeeded ? 'succeeded' : 'pending',
    nextAttemptAt: succeeded ? null : new Date(Date.now() + 60_000),
    endpointChange: null,
    pacing: null,
  };
}

const queuedJobs = (deliveryId: string) =>
  world.db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM pgboss.job WHERE singleton_key = ${deliveryId}`.then(([row]) => row!.n);

const attemptsListed = async (ids: { endpointId: string; deliveryId: string }) => {
  const page = await request(world.app).get(`${ENDPOINTS}/${ids.endpointId}/deliveries/${ids.deliveryId}/attempts`).set(world.agency.auth);
  expect(page.status).toBe(200);
  return page.body._embedded.webhookAttempts as Array<{ responseStatus: number | null; latencyMs: number; error: string | null }>;
};

describe('When a process loses its claim in the middle of an attempt and another makes the next one', () => {
  it('then the first reads as interrupted, its late outcome changes nothing, and the second is completed', async () => {
    const ids = await newDelivery();
    const first = await startAttempt(world.db, ids.deliveryId);
    expect(await attemptsListed(ids)).toEqual([{ attemptedAt: expect.any(String), responseStatus: null, latencyMs: 0, error: IN_PROGRESS_ERROR }]);

    const second = await startAttempt(world.db, ids.deliveryId);
    const jobsBefore = await queuedJobs(ids.deliveryId);
    // The first process's answer comes late: a 503 that would queue a retry. Nothing of it is written.
    expect(await recordAttempt(world.db, outcome(ids, 503), first)).toBe(false);
    expect(await queuedJobs(ids.deliveryId)).toBe(jobsBefore);
    expect(await world.db.webhookDelivery.findUniqueOrThrow({ where: { id: ids.deliveryId } })).toMatchObject({ status: 'pending' });
    expect((await attemptsListed(ids)).map(({ responseStatus, latencyMs, error }) => ({ responseStatus, latencyMs, error }))).toEqual([
      { responseStatus: null, latencyMs: 0, error: INTERRUPTED_ERROR },
      { responseStatus: null, latencyMs: 0, error: IN_PROGRESS_ERROR },
    ]);

    expect(await recordAttempt(world.db, outcome(ids, 200), second)).toBe(true);
    // Completed once: a second completion of the same attempt is refused too.
    expect(await recordAttempt(world.db, outcome(ids, 503), second)).toBe(false);
    const delivery = await hooks.deliveries(ids.endpointId);
    expect(delivery.body._embedded.webhookDeliveries[0]).toMatchObject({
      id: ids.deliveryId,
      status: 'succeeded',
      attemptCount: 2,
      attempts: [
        { responseStatus: null, latencyMs: 0, error: INTERRUPTED_ERROR },
        { responseStatus: 200, latencyMs: 12, error: null },
      ],
    });
  });
});

describe('When an attempt was started longer ago than any attempt lasts and never completed', () => {
  it('then it reads as interrupted, and its outcome can no longer be recorded', async () => {
    const ids = await newDelivery();
    const attempt = await startAttempt(world.db, ids.deliveryId);
    await world.db.$executeRaw`UPDATE webhook_attempts SET attempted_at = now() - interval '11 minutes' WHERE id = ${attempt}::bigint`;
    expect(await attemptsListed(ids)).toEqual([{ attemptedAt: expect.any(String), responseStatus: null, latencyMs: 0, error: INTERRUPTED_ERROR }]);
    expect(await recordAttempt(world.db, outcome(ids, 200), attempt)).toBe(false);
    expect(await world.db.webhookDelivery.findUniqueOrThrow({ where: { id: ids.deliveryId } })).toMatchObject({ status: 'pending' });
  });
});

describe('When a delivery whose last attempt was cut ends without another attempt', () => {
  it('then, its endpoint disabled, the cut attempt reads as interrupted at once and the delivery as failed', async () => {
    const ids = await newDelivery();
    await startAttempt(world.db, ids.deliveryId);
    await failDelivery(world.db, ids.deliveryId);
    expect(await attemptsListed(ids)).toEqual([{ attemptedAt: expect.any(String), responseStatus: null, latencyMs: 0, error: INTERRUPTED_ERROR }]);
    expect(await world.db.webhookDelivery.findUniqueOrThrow({ where: { id: ids.deliveryId } })).toMatchObject({ status: 'failed' });
  });

  it('then, an attempt not sent recorded instead (its scope gone), the cut one reads as interrupted before it', async () => {
    const ids = await newDelivery();
    await startAttempt(world.db, ids.deliveryId);
    const notSent = {
      ...outcome(ids, 500),
      responseStatus: null,
      latencyMs: 0,
      error: 'not sent: scope',
      status: 'failed' as const,
      nextAttemptAt: null,
    };
    expect(await recordAttempt(world.db, notSent)).toBe(true);
    expect((await attemptsListed(ids)).map(({ error }) => error)).toEqual([INTERRUPTED_ERROR, 'not sent: scope']);
  });
});
