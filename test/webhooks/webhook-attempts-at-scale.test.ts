/**
 * The case of issue 23 item 1: a service with 100,000 attempts on one delivery (stored
 * directly, as 83 minutes of one credential's redeliveries would have left them before the cap of
 * 50) answers every listing that could show them within a bounded size, and stays up under 20
 * parallel reads of each: the partner's and the back office's deliveries and attempts pages (no
 * other operation answers a delivery's attempts). The process's heap, sampled
 * every 5 ms during the reads, peaks less than PEAK_GROWTH_BYTES over its baseline (garbage
 * included: 20 answers that each held the 100,000 attempts would take gigabytes; before the cap one
 * `GET .../deliveries?pageSize=1` exhausted it), and after a collection keeps less than
 * RETAINED_BYTES of it. The attempts page's `totalElements` stays exact (a count over the 100,000).
 * How long the reads and that count take is a benchmark's figure (`BENCH_ONLY=bounded make bench`,
 * bench/bounded-answers.ts), not asserted here.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import request from 'supertest';
import { newStaff, OPS } from '../back-office/ops-support';
import { API } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { webhookClient } from './webhook-support';

jest.setTimeout(180_000);

const ATTEMPTS = 100_000;
const PARALLEL = 20;
/** Every answer here is at most 200 attempts or 200 deliveries of 20 embedded attempts; the one delivery stored makes them far smaller. */
const MAX_ANSWER_BYTES = 128 * 1024;
const PEAK_GROWTH_BYTES = 256 * 1024 * 1024;
const RETAINED_BYTES = 16 * 1024 * 1024;

const world = useTestApp({}, { agencies: 1 });
const hooks = webhookClient(world, () => world.agency);

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Calls `read` PARALLEL times at once; the heap's peak over its baseline (after a collection) meanwhile, and what it keeps after another. */
async function inParallel(read: () => request.Test): Promise<{ answers: request.Response[]; heapGrowth: number; retained: number }> {
  gc();
  const baseline = process.memoryUsage().heapUsed;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
  try {
    const answers = await Promise.all(Array.from({ length: PARALLEL }, () => read()));
    const heapGrowth = peak - baseline;
    gc();
    return { answers, heapGrowth, retained: process.memoryUsage().heapUsed - baseline };
  } finally {
    clearInterval(sampler);
  }
}

describe('When one delivery has 100,000 attempts', () => {
  const figures: Record<string, unknown> = {};
  let paths: Record<string, () => request.Test>;

  beforeAll(async () => {
    const endpoint = await hooks.register('http://127.0.0.1:9/hooks');
    const sent = await hooks.test(endpoint.id);
    expect(sent.status).toBe(202);
    const deliveryId = sent.body.id as string;
    await world.db.$executeRaw`INSERT INTO webhook_attempts (delivery_id, response_status, latency_ms, error)
      SELECT ${deliveryId}::uuid, 503, 5, 'HTTP 503' FROM generate_series(1, ${ATTEMPTS}::int)`;
    await world.db.$executeRaw`ANALYZE webhook_attempts`;
    const staff = await newStaff(world);
    const partnerPath = `${API}/v1/webhook-endpoints/${endpoint.id}/deliveries`;
    paths = {
      listWebhookDeliveries: () => request(world.app).get(`${partnerPath}?pageSize=200`).set(world.agency.auth),
      listWebhookDeliveryAttempts: () => request(world.app).get(`${partnerPath}/${deliveryId}/attempts?pageSize=200`).set(world.agency.auth),
      lastPageOfAttempts: () => request(world.app).get(`${partnerPath}/${deliveryId}/attempts?pageSize=200&page=499`).set(world.agency.auth),
      listAgencyWebhookDeliveries: () => request(world.app).get(`${OPS}/v1/webhook-endpoints/${endpoint.id}/deliveries?pageSize=200`).set(staff.auth),
      listAgencyWebhookDeliveryAttempts: () =>
        request(world.app).get(`${OPS}/v1/webhook-endpoints/${endpoint.id}/deliveries/${deliveryId}/attempts?pageSize=200`).set(staff.auth),
    };
    figures.deliveryId = deliveryId;
  });

  afterAll(() => {
    if (process.env.SHOW_FIGURES) console.log(JSON.stringify(figures, null, 2));
  });

  it.each([
    'listWebhookDeliveries',
    'listWebhookDeliveryAttempts',
    'lastPageOfAttempts',
    'listAgencyWebhookDeliveries',
    'listAgencyWebhookDeliveryAttempts',
  ])('then 20 parallel %s answer 200, each under 128 KiB, and the heap peaks less than 256 MB higher and keeps under 16 MB', async (name) => {
    const { answers, heapGrowth, retained } = await inParallel(paths[name]!);
    const sizes = answers.map((answer) => Buffer.byteLength(answer.text));
    figures[name] = {
      maxBytes: Math.max(...sizes),
      heapPeakMB: Math.round(heapGrowth / 2 ** 20),
      retainedMB: Math.round(retained / 2 ** 20),
    };
    for (const answer of answers) expect(answer.status).toBe(200);
    expect(Math.max(...sizes)).toBeLessThan(MAX_ANSWER_BYTES);
    expect(heapGrowth).toBeLessThan(PEAK_GROWTH_BYTES);
    expect(retained).toBeLessThan(RETAINED_BYTES);
    if (name === 'listWebhookDeliveryAttempts' || name === 'listAgencyWebhookDeliveryAttempts') {
      expect(answers[0]!.body.page).toEqual({ size: 200, totalElements: ATTEMPTS, totalPages: 500, number: 0 });
    }
    if (name === 'lastPageOfAttempts') expect(answers[0]!.body._embedded.webhookAttempts).toHaveLength(200);
    if (name === 'listWebhookDeliveries' || name === 'listAgencyWebhookDeliveries') {
      const [delivery] = answers[0]!.body._embedded.webhookDeliveries as Array<{ attemptCount: number; attempts: unknown[] }>;
      expect([delivery!.attemptCount, delivery!.attempts.length]).toEqual([ATTEMPTS, 20]);
    }
    // Still up: the next request is answered.
    expect((await paths.listWebhookDeliveries!()).status).toBe(200);
  });
});
