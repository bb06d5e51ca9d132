/**
 * Fair webhook delivery (issue 23 item 3): agency A's delivery lag with and without agency B's 30
 * slow receivers, in the same run. One sandbox service (loopback receivers allowed) delivers with its
 * defaults (10 slots, 3 per agency, 10 s timeout). A creates guarantees at BENCH_FAIR_RATE per second
 * (10) for BENCH_FAIR_SECONDS (15) per phase, its one endpoint answering 204 at once; in a "with"
 * phase B also creates 2 guarantees a second, each delivered to B's 30 endpoints, whose receiver
 * reads the request and never answers (every attempt holds a slot until the timeout). The API allows
 * 10 endpoints per agency: B's 30 are written to the database directly, as the issue's measurement
 * had them. Phases alternate without / with, BENCH_FAIR_PAIRS (3) pairs; B's endpoints and their
 * deliveries are removed after each "with" phase. `BENCH_ONLY=fairness` runs only it.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCredential } from '../src/auth/credentials';
import { SCOPES } from '../src/auth/scopes';
import { createDatabaseClient, type Database } from '../src/database/prisma-client';
import { Prisma } from '../src/generated/prisma/client';
import { unqueueDeliveries } from '../src/job-queue/delivery-queue';
import { newWebhookSecret, secretBox } from '../src/webhooks/secret-box';
import { log } from './measure';
import { startWebhookService } from './processes';
import { accessToken, scenarioInputs, type BenchDatabase } from './setup';
import { scenarios } from './scenarios';

const PORT = 3798;
const RATE = Number(process.env.BENCH_FAIR_RATE ?? 10);
const SECONDS = Number(process.env.BENCH_FAIR_SECONDS ?? 15);
const PAIRS = Number(process.env.BENCH_FAIR_PAIRS ?? 3);
const SLOW_RECEIVERS = 30;
const B_RATE = 2;
const [COMPANY_A, COMPANY_B] = ['bench-fair-a', 'bench-fair-b'];

export interface FairnessPhase {
  withB: boolean;
  events: number;
  received: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  heldByB: number;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** A's receiver (204 at once, notes each event's lag) and B's (never answers; counts what it holds). */
async function receivers() {
  const lags: number[] = [];
  const fast = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { occurredAt: string };
      lags.push(Date.now() - Date.parse(event.occurredAt));
      response.writeHead(204).end();
    });
  });
  const slow = http.createServer((request) => request.resume());
  let held = 0;
  slow.on('request', () => held++);
  for (const server of [fast, slow]) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = (server: http.Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    lags,
    fastUrl: `${url(fast)}/a`,
    slowUrl: url(slow),
    held: () => held,
    close: () => {
      for (const server of [fast, slow]) {
        server.closeAllConnections();
        server.close();
      }
    },
  };
}

async function sandboxCredential(db: Database, companyId: string): Promise<string> {
  const credential = await createCredential(db, 'sandbox', {
    companyId,
    companyName: companyId,
    displayName: `${companyId} ${new Date().toISOString()}`,
    scopes: [...SCOPES],
    createdBy: 'bench',
  });
  return `Basic ${Buffer.from(`${credential.clientId}:${credential.clientSecret}`).toString('base64')}`;
}

/** Removes an agency's endpoints with their deliveries, and their queued jobs. */
async function removeEndpoints(db: Database, companyId: string): Promise<void> {
  await db.$executeRaw`${unqueueDeliveries(Prisma.sql`SELECT d.id FROM webhook_deliveries d WHERE d.company_id = ${companyId} AND d.status = 'pending'`)}`;
  await db.webhookEndpoint.deleteMany({ where: { companyId } });
}

/** `count` creates a second for SECONDS with `auth`, on a steady clock; resolves when all are answered. */
async function steadyCreates(origin: string, auth: string, basic: string, bench: BenchDatabase, perSecond: number): Promise<number> {
  const create = scenarios({ ...scenarioInputs(bench, ''), auth, basic }).find((scenario) => scenario.name === 'create')!;
  const total = perSecond * SECONDS;
  const started = performance.now();
  const sent: Promise<number>[] = [];
  for (let i = 0; i < total; i++) {
    const wait = started + (i * 1000) / perSecond - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const request = create.setupRequest!({ headers: { ...create.headers }, path: create.path, body: create.body });
    sent.push(
      fetch(`${origin}${request.path}`, { method: 'POST', headers: request.headers, body: request.body })
        .then(async (response) => (await response.arrayBuffer(), response.status))
        .catch(() => 0),
    );
  }
  return (await Promise.all(sent)).filter((status) => status === 201).length;
}

export async function measureWebhookFairness(bench: BenchDatabase, baseEnv: Record<string, string>): Promise<FairnessPhase[]> {
  const origin = `http://127.0.0.1:${PORT}`;
  const db = createDatabaseClient(bench.url, { poolMax: 2 });
  const hooks = await receivers();
  const service = await startWebhookService(baseEnv, PORT);
  try {
    for (const company of [COMPANY_A, COMPANY_B]) await removeEndpoints(db, company);
    const [basicA, basicB] = [await sandboxCredential(db, COMPANY_A), await sandboxCredential(db, COMPANY_B)];
    const [tokenA, tokenB] = [await accessToken(origin, basicA), await accessToken(origin, basicB)];
    const registered = await fetch(`${origin}/rental-guarantee/v1/webhook-endpoints`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${tokenA}`, 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() },
      body: JSON.stringify({ url: hooks.fastUrl, eventTypes: ['rental_insurance.status_changed'] }),
    });
    if (registered.status !== 201) throw new Error(`webhook endpoint registration answered ${registered.status}`);
    const box = secretBox({ ENVIRONMENT: 'sandbox', WEBHOOK_SECRET_KEY: baseEnv.WEBHOOK_SECRET_KEY });
    const phases: FairnessPhase[] = [];
    for (let pair = 0; pair < PAIRS; pair++) {
      for (const withB of [false, true]) {
        if (withB) {
          // Stored directly, each owned (issue 23 item 2) by agency B's newest credential.
          const owner = await db.credential.findFirstOrThrow({ where: { companyId: COMPANY_B }, orderBy: { createdAt: 'desc' } });
          await db.webhookEndpoint.createMany({
            data: Array.from({ length: SLOW_RECEIVERS }, (_, i) => ({
              id: randomUUID(),
              companyId: COMPANY_B,
              credentialId: owner.id,
              url: `${hooks.slowUrl}/b${i}`,
              eventTypes: ['rental_insurance.status_changed'],
              secret: box.seal(newWebhookSecret()),
            })),
          });
        }
        hooks.lags.length = 0;
        const heldBefore = hooks.held();
        log(`webhook fairness: pair ${pair + 1}, ${withB ? `with B's ${SLOW_RECEIVERS} slow receivers` : 'A alone'}`);
        const [events] = await Promise.all([
          steadyCreates(origin, `Bearer ${tokenA}`, basicA, bench, RATE),
          withB ? steadyCreates(origin, `Bearer ${tokenB}`, basicB, bench, B_RATE) : Promise.resolve(0),
        ]);
        const deadline = Date.now() + 60_000;
        while (hooks.lags.length < events && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
        const sorted = [...hooks.lags].sort((a, b) => a - b);
        phases.push({
          withB,
          events,
          received: sorted.length,
          p50Ms: percentile(sorted, 50),
          p99Ms: percentile(sorted, 99),
          maxMs: sorted[sorted.length - 1] ?? NaN,
          heldByB: hooks.held() - heldBefore,
        });
        if (withB) await removeEndpoints(db, COMPANY_B);
      }
    }
    return phases;
  } finally {
    hooks.close();
    service.kill('SIGTERM');
    await new Promise((resolve) => service.once('exit', resolve));
    await removeEndpoints(db, COMPANY_B).catch(() => undefined);
    await db.$disconnect();
  }
}

export function formatWebhookFairness(phases: FairnessPhase[]): string {
  const p99 = (withB: boolean) => phases.filter((phase) => phase.withB === withB).map((phase) => phase.p99Ms);
  const worst = Math.max(...p99(true));
  const ratios = phases
    .filter((phase) => phase.withB)
    .map((phase, i) => (phase.p99Ms / (p99(false)[i] ?? NaN)).toFixed(2))
    .join(', ');
  return [
    '',
    "## Fair webhook delivery: agency A with and without agency B's 30 slow receivers (same run)",
    '',
    `One sandbox service with its delivery defaults (10 slots, 3 per agency, 10 s timeout). A creates ${RATE} guarantees/s for ${SECONDS} s per phase, ` +
      `its endpoint answering 204 at once; "with B": B also creates ${B_RATE}/s, each delivered to B's ${SLOW_RECEIVERS} endpoints whose receiver never answers. ` +
      `Phases interleaved, ${PAIRS} pairs. Lag: an event's \`occurredAt\` to its arrival at A's receiver.`,
    '',
    "| pair | B's slow receivers | A events delivered | A lag p50 ms | A lag p99 ms | A lag max ms | B attempts held |",
    '|---:|---|---:|---:|---:|---:|---:|',
    ...phases.map(
      (phase, i) =>
        `| ${Math.floor(i / 2) + 1} | ${phase.withB ? 'with' : 'without'} | ${phase.received} of ${phase.events} | ${phase.p50Ms} | ${phase.p99Ms} | ${phase.maxMs} | ${phase.heldByB} |`,
    ),
    '',
    `A's p99 with / without B, per pair: ${ratios}; worst p99 with B: ${worst} ms (target: < 1000 ms).`,
    '',
  ].join('\n');
}
