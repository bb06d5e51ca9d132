/**
 * What events add to a create, measured in the same `make bench` run (issue 14: a create must keep
 * at least 0.85 of its throughput without events). The service has no switch that turns events
 * off, and gets none for this: a switch that can lose events must not exist in production. So the
 * A/B is made of two measurements that need none:
 *  - fan-out, through the running service: creates of the bench agency with no subscribed webhook
 *    endpoint, with 1, and with BENCH_EVENT_ENDPOINTS (default 10, the most the API allows an
 *    agency), interleaved over BENCH_PAIRS rounds. Each subscribed endpoint adds a delivery row and
 *    a queued job to every create. The endpoints are written here directly (the production service
 *    would refuse their addresses, and its delivery worker is off, so nothing is ever sent); their
 *    deliveries, queued jobs and the endpoints themselves are removed afterwards;
 *  - the event row itself (event-row.ts): a create's last statement with and without its event
 *    part, through Prisma, with the same number of callers.
 * The report then estimates a create without events from the two: with C connections a create
 * takes C / (req/s) on average (Little's law), of which the event row took the measured difference.
 * BENCH_EVENTS=0 leaves it out; BENCH_ONLY=events runs only it (with the reference and the floors).
 */
import { randomUUID } from 'node:crypto';
import { createDatabaseClient, type Database } from '../src/database/prisma-client';
import { newWebhookSecret, secretBox } from '../src/webhooks/secret-box';
import { BENCH_HOSTS, dropDeliveries, removeBenchEndpoints } from './bench-endpoints';
import { measureEventRow, type StatementRun } from './event-row';
import { log, measure } from './measure';
import type { Measurement } from './report';
import { scenarios } from './scenarios';
import { BENCH_COMPANY } from './seed';
import { scenarioInputs, type BenchDatabase } from './setup';
import { median } from './median';

const PAIRS = Number(process.env.BENCH_PAIRS ?? 3);
const MOST_ENDPOINTS = Number(process.env.BENCH_EVENT_ENDPOINTS ?? 10);

export interface EventsCost {
  fanOut: Array<{ endpoints: number; round: number; measurement: Measurement }>;
  lastStatement: StatementRun[];
  connections: number;
}

interface Setup {
  database: BenchDatabase;
  /** The running service (production, no delivery worker), its pid, and a token of the bench agency. */
  origin: string;
  pid: number | undefined;
  token: string;
  webhookSecretKey: string;
  seconds: number;
  connections: number;
}

/**
 * Returns once the bench agency's creates have stopped (no new event for half a second): the load
 * generator stops at its deadline, but the service still finishes the creates it had begun.
 */
async function createsFinished(db: Database): Promise<void> {
  const latest = async () =>
    (await db.event.findFirst({ where: { companyId: BENCH_COMPANY }, orderBy: { position: 'desc' }, select: { position: true } }))?.position;
  for (let before = await latest(), tries = 0; tries < 20; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = await latest();
    if (now === before) return;
    before = now;
  }
}

/** The first `count` of the bench's endpoints subscribed (enabled), the others not. */
async function subscribe(db: Database, endpointIds: string[], count: number): Promise<void> {
  await db.webhookEndpoint.updateMany({ where: { id: { in: endpointIds } }, data: { enabled: false, disabledReason: 'operator' } });
  await db.webhookEndpoint.updateMany({ where: { id: { in: endpointIds.slice(0, count) } }, data: { enabled: true, disabledReason: null } });
}

export async function measureEventsCost(setup: Setup): Promise<EventsCost> {
  const create = scenarios(scenarioInputs(setup.database, setup.token)).find((scenario) => scenario.name === 'create')!;
  const db = createDatabaseClient(setup.database.url, { poolMax: 2 });
  const fanOut: EventsCost['fanOut'] = [];
  try {
    await removeBenchEndpoints(db);
    const box = secretBox({ WEBHOOK_SECRET_KEY: setup.webhookSecretKey, ENVIRONMENT: 'production' });
    const endpointIds = Array.from({ length: MOST_ENDPOINTS }, () => randomUUID());
    await db.webhookEndpoint.createMany({
      data: endpointIds.map((id, index) => ({
        id,
        companyId: BENCH_COMPANY,
        credentialId: setup.database.credential.credentialId,
        url: `https://hooks-${index + 1}${BENCH_HOSTS}`,
        description: 'make bench: events A/B',
        eventTypes: ['rental_insurance.status_changed'],
        secret: box.seal(newWebhookSecret()),
        enabled: false,
        disabledReason: 'operator',
      })),
    });
    log(`events A/B: creates with 0, 1 and ${MOST_ENDPOINTS} subscribed endpoints (${PAIRS} rounds)`);
    for (let round = 1; round <= PAIRS; round++) {
      for (const endpoints of [...new Set([0, 1, MOST_ENDPOINTS])]) {
        await subscribe(db, endpointIds, endpoints);
        const measurement = await measure(
          { ...create, name: `create, ${endpoints} subscribed endpoint${endpoints === 1 ? '' : 's'}` },
          setup.origin,
          setup.connections,
          setup.pid,
          setup.seconds,
        );
        fanOut.push({ endpoints, round, measurement });
        // Unsubscribed first, so that the creates still finishing queue nothing more.
        await subscribe(db, endpointIds, 0);
        await createsFinished(db);
        await dropDeliveries(db, endpointIds);
      }
    }
  } finally {
    await removeBenchEndpoints(db);
    await db.$disconnect();
  }
  const lastStatement = await measureEventRow(setup.database, setup.origin, create, {
    seconds: setup.seconds,
    concurrency: setup.connections,
    pairs: PAIRS,
  });
  return { fanOut, lastStatement, connections: setup.connections };
}

const cpuCell = (m: Measurement) =>
  [m.cpu.serverMs, m.cpu.postgresMs, m.cpu.loadGeneratorMs].map((ms) => (ms === undefined ? '–' : ms.toFixed(2))).join(', ');

/** The A/B's two tables and what they say together. */
export function formatEventsCost(cost: EventsCost): string {
  const rate = (endpoints: number) =>
    median(cost.fanOut.filter((row) => row.endpoints === endpoints).map((row) => row.measurement.requestsPerSecond));
  const counts = [...new Set(cost.fanOut.map((row) => row.endpoints))];
  const none = rate(0);
  // The event row's added time per create: the difference of the means within each pair, median of the pairs.
  const pairs = [...new Set(cost.lastStatement.map((run) => run.pair))];
  const meanOf = (pair: number, variant: StatementRun['variant']) =>
    cost.lastStatement.find((run) => run.pair === pair && run.variant === variant)?.meanMs ?? NaN;
  const addedMs = median(pairs.map((pair) => meanOf(pair, 'with its event') - meanOf(pair, 'without its event')));
  const createMs = (cost.connections / none) * 1000;
  const keptWithoutEndpoints = 1 - addedMs / createMs;
  const kept = (endpoints: number) => (keptWithoutEndpoints * rate(endpoints)) / none;
  return [
    '',
    '## Cost of events on a create (A/B, same run)',
    '',
    'Fan-out, through the service: creates of the bench agency with no webhook endpoint subscribed to its status changes, and with ' +
      `some (each adds a delivery row and a queued job to every create; nothing is delivered), interleaved over ${PAIRS} round${PAIRS === 1 ? '' : 's'}.`,
    '',
    '| Subscribed endpoints (round) | req/s | p50 ms | p99 ms | CPU ms/request: service, PostgreSQL, load generator | statuses |',
    '|---|---:|---:|---:|---:|---|',
    ...cost.fanOut.map(
      ({ endpoints, round, measurement: m }) =>
        `| ${endpoints} (${round}) | ${m.requestsPerSecond.toFixed(0)} | ${m.p50} | ${m.p99} | ${cpuCell(m)} | ${Object.entries(m.statuses)
          .map(([status, count]) => `${status}×${count}`)
          .join(' ')} |`,
    ),
    '',
    `The event row, through Prisma: a create's last statement (its idempotency record, usage and history entry) and COMMIT, ` +
      `with and without its event part, ${cost.connections} callers at once, interleaved.`,
    '',
    '| Last statement (pair) | statements/s | mean ms | p50 ms | p99 ms |',
    '|---|---:|---:|---:|---:|',
    ...cost.lastStatement.map(
      (run) =>
        `| ${run.variant} (${run.pair}) | ${run.statementsPerSecond.toFixed(0)} | ${run.meanMs.toFixed(2)} | ${run.p50Ms.toFixed(2)} | ${run.p99Ms.toFixed(2)} |`,
    ),
    '',
    `Fan-out (measured, median of the rounds): a create keeps ${counts
      .filter((count) => count > 0)
      .map((count) => `${(rate(count) / none).toFixed(2)} of its throughput with ${count} subscribed endpoint${count === 1 ? '' : 's'}`)
      .join(' and ')}, against none.`,
    `Event row (measured, median of the pairs): ${addedMs >= 0 ? '+' : ''}${addedMs.toFixed(2)} ms per create, of the ${createMs.toFixed(1)} ms a create takes on average ` +
      `at ${cost.connections} connections with no endpoint (connections / req/s).`,
    `Together (estimated): a create keeps about ${counts.map((count) => `${kept(count).toFixed(2)} with ${count}`).join(', ')} ` +
      'subscribed endpoints of the throughput it would have without events (target >= 0.85).',
    '',
  ].join('\n');
}
