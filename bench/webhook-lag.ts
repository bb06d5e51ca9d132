/**
 * Webhook delivery lag (issue 14): a sandbox service on the bench database (a company of its own,
 * so that loopback receivers are allowed and no other agency's data is touched) creates
 * BENCH_WEBHOOK_EVENTS guarantees (10,000 by default) through the API at a steady rate while
 * one subscribed endpoint, a local receiver on 127.0.0.1, gets their `status_changed` events. The lag
 * of an event is the time from its `occurredAt` to its arrival. The sandbox reviewer and the
 * scheduler stay off, so every event comes from a create. `BENCH_WEBHOOKS=0` leaves it out;
 * `BENCH_ONLY=webhook` runs only it.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCredential } from '../src/auth/credentials';
import { SCOPES } from '../src/auth/scopes';
import { createDatabaseClient } from '../src/database/prisma-client';
import { Prisma } from '../src/generated/prisma/client';
import { unqueueDeliveries } from '../src/job-queue/delivery-queue';
import { log } from './measure';
import { startWebhookService } from './processes';
import { accessToken, scenarioInputs, type BenchDatabase } from './setup';
import { scenarios, type Scenario } from './scenarios';

const PORT = 3797;
const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 10_000);
const DRAIN_TIMEOUT_MS = 180_000;
/** Creates waiting for their answer at most at once (the service's pool holds 20 connections). */
const MAX_IN_FLIGHT = 20;
/**
 * Creates per second (BENCH_WEBHOOK_RATE, 25): a steady load that one service process carries with
 * room to spare on the benchmark machine, since the lag of a healthy receiver is asked, not the
 * backlog of a saturated process (near its capacity for creates and deliveries together, every
 * create and every delivery queues for the same main thread, and the lag's tail grows to seconds:
 * see the hand-written notes in bench/results.md). 0: as fast as the API answers.
 */
const RATE = Number(process.env.BENCH_WEBHOOK_RATE ?? 25);

export interface WebhookLag {
  events: number;
  received: number;
  duplicates: number;
  createPerSecond: number;
  createStatuses: Record<number, number>;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** A receiver that answers 204 and notes each event's lag, once per webhook-id. */
async function startReceiver(): Promise<{ url: string; lags: number[]; seen: Set<string>; duplicates(): number; close(): void }> {
  const lags: number[] = [];
  const seen = new Set<string>();
  let duplicates = 0;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const arrived = Date.now();
      const id = String(request.headers['webhook-id']);
      if (seen.has(id)) duplicates++;
      else {
        seen.add(id);
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { occurredAt: string };
        lags.push(arrived - Date.parse(event.occurredAt));
      }
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    lags,
    seen,
    duplicates: () => duplicates,
    close: () => server.close(),
  };
}

const COMPANY = 'bench-webhooks';

/** A sandbox credential of the bench's webhook agency, whose endpoints of earlier runs (their receivers gone) are deleted first. */
async function sandboxBasic(bench: BenchDatabase): Promise<string> {
  const db = createDatabaseClient(bench.url, { poolMax: 2 });
  try {
    // Their queued attempts are removed from the queue, so that this
    // run's deliveries do not wait behind retries to receivers that are gone; then the endpoints
    // themselves (with their deliveries and attempts), since an agency may hold only a few.
    await db.$executeRaw`${unqueueDeliveries(Prisma.sql`SELECT d.id FROM webhook_deliveries d WHERE d.company_id = ${COMPANY} AND d.status = 'pending'`)}`;
    await db.webhookEndpoint.deleteMany({ where: { companyId: COMPANY } });
    const credential = await createCredential(db, 'sandbox', {
      companyId: COMPANY,
      companyName: 'Bench webhooks',
      displayName: `bench webhooks ${new Date().toISOString()}`,
      scopes: [...SCOPES],
      createdBy: 'bench',
    });
    return `Basic ${Buffer.from(`${credential.clientId}:${credential.clientSecret}`).toString('base64')}`;
  } finally {
    await db.$disconnect();
  }
}

/**
 * The creates, one every 1/RATE s on a steady clock (at most MAX_IN_FLIGHT at once): a partner's
 * traffic, not the synchronised bursts of autocannon's `overallRate` (each of its connections sends
 * its share at the same instants, so 20 creates start together and queue behind each other, which
 * measured the queue rather than the delivery).
 */
async function pacedCreates(origin: string, create: Scenario, onStatus: (status: number) => void): Promise<void> {
  const interval = RATE > 0 ? 1000 / RATE : 0;
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  for (let sent = 0; sent < EVENTS; sent++) {
    const due = started + sent * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (inFlight.size >= MAX_IN_FLIGHT) await Promise.race(inFlight);
    const request = create.setupRequest!({ headers: { ...create.headers }, path: create.path, body: create.body });
    const sending: Promise<void> = fetch(`${origin}${request.path}`, { method: create.method, headers: request.headers, body: request.body })
      .then(async (response) => {
        await response.arrayBuffer();
        onStatus(response.status);
      })
      .catch(() => onStatus(0))
      .finally(() => inFlight.delete(sending));
    inFlight.add(sending);
  }
  await Promise.all(inFlight);
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

export async function measureWebhookLag(bench: BenchDatabase, baseEnv: Record<string, string>): Promise<WebhookLag> {
  const origin = `http://127.0.0.1:${PORT}`;
  const receiver = await startReceiver();
  const service = await startWebhookService(baseEnv, PORT);
  try {
    const token = await accessToken(origin, await sandboxBasic(bench));
    const registered = await fetch(`${origin}/rental-guarantee/v1/webhook-endpoints`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() },
      body: JSON.stringify({ url: receiver.url, eventTypes: ['rental_insurance.status_changed'] }),
    });
    if (registered.status !== 201) throw new Error(`webhook endpoint registration answered ${registered.status}`);
    const create = scenarios(scenarioInputs(bench, token)).find((scenario) => scenario.name === 'create')!;
    log(`webhook lag: ${EVENTS} creates, each delivering one event to ${receiver.url}`);
    const statuses: Record<number, number> = {};
    const started = Date.now();
    await pacedCreates(origin, create, (status) => (statuses[status] = (statuses[status] ?? 0) + 1));
    const createPerSecond = EVENTS / ((Date.now() - started) / 1000);
    const created = statuses[201] ?? 0;
    const deadline = Date.now() + DRAIN_TIMEOUT_MS;
    while (receiver.seen.size < created && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    const sorted = [...receiver.lags].sort((a, b) => a - b);
    return {
      events: created,
      received: receiver.seen.size,
      duplicates: receiver.duplicates(),
      createPerSecond,
      createStatuses: statuses,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
      maxMs: sorted[sorted.length - 1] ?? NaN,
    };
  } finally {
    receiver.close();
    service.kill('SIGTERM');
    await new Promise((resolve) => service.once('exit', resolve));
  }
}

export function formatWebhookLag(lag: WebhookLag): string {
  const statuses = Object.entries(lag.createStatuses)
    .map(([status, count]) => `${status}×${count}`)
    .join(' ');
  return [
    '',
    '## Webhook delivery lag (same run)',
    '',
    `${lag.events.toLocaleString('en-US')} guarantees created through the API (one every ${RATE ? `${(1000 / RATE).toFixed(0)} ms` : 'moment'}, at most ${MAX_IN_FLIGHT} at once: ${lag.createPerSecond.toFixed(0)} req/s, ${statuses}) ` +
      'with one subscribed endpoint on 127.0.0.1 answering 204; the lag of an event is the time from its `occurredAt` to its arrival.',
    '',
    '| events delivered | duplicates | lag p50 ms | lag p99 ms | lag max ms | target |',
    '|---:|---:|---:|---:|---:|---|',
    `| ${lag.received.toLocaleString('en-US')} of ${lag.events.toLocaleString('en-US')} | ${lag.duplicates} | ${lag.p50Ms} | ${lag.p99Ms} | ${lag.maxMs} | p99 < 1000 ms |`,
    '',
  ].join('\n');
}
