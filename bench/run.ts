/**
 * `make bench`: seeds a company with BENCH_ROWS guarantees and statement entries (default
 * 1,000,000), starts the built service, a bare Express reference server, the two read stack-floor
 * servers and the write floor (write-floor-server.ts) as separate processes, measures each operation
 * with autocannon, and writes the table to bench/results.md; get by id and a create are measured
 * again against their floors in interleaved pairs. Then, on the same database: what traces cost a
 * get (tracing-cost.ts), what events cost a create (events-cost.ts), the
 * deployment variants, the request log's cost (request-log-cost.ts), what anonymous readers of the public pages cost a get (public-pages.ts), the topology variants, capacity with 1, 2 and 4
 * processes direct and through PgBouncer (capacity.ts), the webhook delivery lag, bounded answers (bounded-answers.ts), documents' uploads and downloads beside their floor (documents-bench.ts) and the token
 * endpoint under a flood (token-flood.ts). Not part of the test run. Environment:
 * BENCH_ROWS, BENCH_SECONDS (8), BENCH_CONNECTIONS (20), BENCH_LATENCY_CONNECTIONS (1), BENCH_ONLY
 * (comma-separated name words; does not write the file), BENCH_POOL_MAX (20),
 * BENCH_SERVICE_NODE_ARGS (e.g. --cpu-prof), BENCH_EVENTS / BENCH_VARIANTS / BENCH_WEBHOOKS /
 * BENCH_FAIRNESS / BENCH_BOUNDED / BENCH_REQUEST_LOG / BENCH_PUBLIC_PAGES / BENCH_TOPOLOGY / BENCH_CAPACITY / BENCH_TRACING / BENCH_TOKEN / BENCH_DOCUMENTS (0 leaves that part out; webhook-fairness.ts: BENCH_FAIR_RATE, _SECONDS, _PAIRS), DATABASE_URL (otherwise an embedded PostgreSQL in .data/bench-postgres, on BENCH_DB_PORT or 54369).
 */
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../src/project-root';
import { log, measure } from './measure';
import { sampleMemory, startProcess, startService } from './processes';
import { formatVariants, measureDeploymentVariants } from './deployment-variants';
import { formatTopologyVariants, measureTopologyVariants } from './topology-variants';
import { againstWriteFloor, GET_AGAINST_ADAPTER_FLOOR, formatFloorPairs, measureFloorPairs } from './floor-pairs';
import { formatTracingCost, measureTracingCost } from './tracing-cost';
import { formatEventsCost, measureEventsCost } from './events-cost';
import { formatWebhookFairness, measureWebhookFairness } from './webhook-fairness';
import { formatWebhookLag, measureWebhookLag } from './webhook-lag';
import { formatBoundedAnswers, measureBoundedAnswers } from './bounded-answers';
import { formatRequestLogCost, measureRequestLogCost } from './request-log-cost';
import { formatTokenFlood, measureTokenFlood } from './token-flood';
import { formatPublicPages, measurePublicPages } from './public-pages';
import { measureDocuments } from './documents-bench';
import { formatDocuments } from './documents-report';
import { measureCapacity } from './capacity';
import { formatCapacity } from './capacity-report';
import { formatResults, withHandWrittenNotes, type Measurement } from './report';
import { scenarios } from './scenarios';
import { accessToken, prepareBench, restoreDecidedProposals, ROWS, scenarioInputs, selected } from './setup';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const LATENCY_CONNECTIONS = Number(process.env.BENCH_LATENCY_CONNECTIONS ?? 1);
const PORTS = { service: 3790, reference: 3791, prismaFloor: 3794, pgFloor: 3795, writeFloor: 3796, adapterFloor: 3797 };

async function main(): Promise<void> {
  const bench = await prepareBench();
  const env = {
    DATABASE_URL: bench.url,
    LOG_LEVEL: 'warn',
    DATABASE_POOL_MAX: process.env.BENCH_POOL_MAX ?? '20',
    ENVIRONMENT: 'production',
    PUBLIC_ORIGIN: `http://127.0.0.1:${PORTS.service}`,
    // The quota is counted on every request, as in production, but large enough never to refuse the load.
    RATE_LIMIT_REQUESTS: '10000000',
    // And the agency's quota (all its credentials together), counted as well.
    RATE_LIMIT_AGENCY_REQUESTS: '10000000',
    // Likewise the comment quota: the comment scenario measures comments, not their 429.
    COMMENT_QUOTA_PER_DAY: '10000000',
    // And the stored write responses of the bench agency (500,000 a day by default): a day of runs
    // writes more, and the writes would then measure 429 idempotency_quota_exceeded.
    IDEMPOTENCY_RECORDS_PER_AGENCY: '100000000',
    SCHEDULER_INTERVAL_MS: '0',
    // Required in production (webhook secrets at rest); a fixed key is fine for a benchmark.
    WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
  };
  const origin = `http://127.0.0.1:${PORTS.service}`;
  // Its delivery worker stays off: the webhook lag below is measured with a sandbox service's worker
  // alone (a production worker refuses the loopback receiver).
  const service = await startService(
    { ...env, PORT: String(PORTS.service), WEBHOOK_DELIVERY_CONCURRENCY: '0' },
    `${origin}/rental-guarantee/openapi.json`,
  );
  const token = await accessToken(origin, bench.basic);
  const floorProbe = (port: number) => ({
    url: `http://127.0.0.1:${port}/rental-insurances/${bench.sample.id}`,
    headers: { Authorization: `Bearer ${token}` },
  });
  const reference = await startProcess(
    'reference',
    'dist/bench/reference-server.js',
    [String(PORTS.reference)],
    {},
    { url: `http://127.0.0.1:${PORTS.reference}/hello` },
  );
  const floors = await Promise.all([
    startProcess('prisma floor', 'dist/bench/floor-server.js', [String(PORTS.prismaFloor), 'prisma', bench.url], {}, floorProbe(PORTS.prismaFloor)),
    startProcess('pg floor', 'dist/bench/floor-server.js', [String(PORTS.pgFloor), 'pg', bench.url], {}, floorProbe(PORTS.pgFloor)),
    startProcess(
      'write floor',
      'dist/bench/write-floor-server.js',
      [String(PORTS.writeFloor), bench.url],
      {},
      { url: `http://127.0.0.1:${PORTS.writeFloor}/ready` },
    ),
    startProcess(
      'adapter floor',
      'dist/bench/floor-server.js',
      [String(PORTS.adapterFloor), 'adapter', bench.url],
      {},
      floorProbe(PORTS.adapterFloor),
    ),
  ]);
  const memory = sampleMemory(service.pid!);
  try {
    const floorScenario = (name: string) => ({
      name,
      method: 'GET' as const,
      path: `/rental-insurances/${bench.sample.id}`,
      headers: { Authorization: `Bearer ${token}` },
    });
    const measurements: Measurement[] = [];
    const ceiling = await measure(
      { name: 'reference: bare Express JSON endpoint', method: 'GET', path: '/hello' },
      `http://127.0.0.1:${PORTS.reference}`,
      CONNECTIONS,
      reference.pid,
      SECONDS,
    );
    const prismaFloorScenario = floorScenario('stack floor: Express + one Prisma $queryRaw (token check + get by id)');
    const prismaFloor = await measure(prismaFloorScenario, `http://127.0.0.1:${PORTS.prismaFloor}`, CONNECTIONS, floors[0].pid, SECONDS);
    const pgFloor = await measure(
      floorScenario('stack floor: Express + one prepared pg statement (token check + get by id)'),
      `http://127.0.0.1:${PORTS.pgFloor}`,
      CONNECTIONS,
      floors[1].pid,
      SECONDS,
    );
    measurements.push(ceiling, prismaFloor, pgFloor);
    for (const scenario of scenarios(scenarioInputs(bench, token)).filter((candidate) => selected(candidate.name))) {
      if (scenario.decidesProposals) await restoreDecidedProposals(bench.url);
      memory.reset();
      measurements.push({ ...(await measure(scenario, origin, CONNECTIONS, service.pid, SECONDS)), peakRssMb: memory.peakMb() });
      // A latency target is about the query, not about queueing behind 19 other callers: such an
      // operation is measured again with LATENCY_CONNECTIONS concurrent callers.
      if (scenario.latencyTarget) {
        memory.reset();
        const alone = await measure(scenario, origin, LATENCY_CONNECTIONS, service.pid, SECONDS);
        measurements.push({ ...alone, target: scenario.latencyTarget, peakRssMb: memory.peakMb() });
      }
    }
    const all = scenarios(scenarioInputs(bench, token));
    const getById = all.find((scenario) => scenario.name === 'get by id')!;
    const floorPairs = !selected('get by id')
      ? []
      : await measureFloorPairs(
          { scenario: prismaFloorScenario, origin: `http://127.0.0.1:${PORTS.prismaFloor}`, pid: floors[0].pid },
          { scenario: getById, origin, pid: service.pid },
          SECONDS,
          CONNECTIONS,
        );
    const adapterFloorPairs = !selected('get by id')
      ? []
      : await measureFloorPairs(
          {
            scenario: floorScenario("stack floor: Express + one statement through Prisma's driver adapter (token check + get by id)"),
            origin: `http://127.0.0.1:${PORTS.adapterFloor}`,
            pid: floors[3].pid,
          },
          { scenario: getById, origin, pid: service.pid },
          SECONDS,
          CONNECTIONS,
          GET_AGAINST_ADAPTER_FLOOR,
        );
    // The floor creates with the create's body and fresh keys, on its own path; a patch and a
    // comment are set against the same floor (their statements are as many as a create's).
    const create = all.find((scenario) => scenario.name === 'create')!;
    const writeFloor = {
      scenario: { ...create, name: 'write floor: Express + the statements of a create in one Prisma transaction', path: '/rental-insurances' },
      origin: `http://127.0.0.1:${PORTS.writeFloor}`,
      pid: floors[2].pid,
    };
    const writeFloorReports: string[] = [];
    for (const [name, label] of [
      ['create', 'Create'],
      ['patch (merge patch, If-Match)', 'Patch'],
      ['comment', 'Comment'],
    ] as const) {
      const write = all.find((scenario) => scenario.name === name)!;
      if (!selected(name)) continue;
      const pairs = await measureFloorPairs(
        writeFloor,
        { scenario: write, origin, pid: service.pid },
        SECONDS,
        CONNECTIONS,
        againstWriteFloor(label),
      );
      writeFloorReports.push(formatFloorPairs(pairs, againstWriteFloor(label)));
    }
    const tracing =
      !selected('tracing') || process.env.BENCH_TRACING === '0'
        ? ''
        : formatTracingCost(await measureTracingCost({ database: bench, baseEnv: env, seconds: SECONDS, connections: CONNECTIONS }));
    // Through the service measured above (its creates), then Prisma alone.
    const events =
      !selected('events A/B') || process.env.BENCH_EVENTS === '0'
        ? ''
        : formatEventsCost(
            await measureEventsCost({
              database: bench,
              origin,
              pid: service.pid,
              token,
              webhookSecretKey: env.WEBHOOK_SECRET_KEY,
              seconds: SECONDS,
              connections: CONNECTIONS,
            }),
          );
    // The variants start services of their own; the one measured above stays idle meanwhile.
    const variants =
      !selected('deployment variants') || process.env.BENCH_VARIANTS === '0'
        ? ''
        : formatVariants(await measureDeploymentVariants({ database: bench, baseEnv: env, seconds: SECONDS, connections: CONNECTIONS }));
    const requestLog =
      !selected('request log') || process.env.BENCH_REQUEST_LOG === '0'
        ? ''
        : formatRequestLogCost(await measureRequestLogCost({ database: bench, baseEnv: env, seconds: SECONDS, connections: CONNECTIONS }));
    const publicPages =
      !selected('public pages') || process.env.BENCH_PUBLIC_PAGES === '0'
        ? ''
        : formatPublicPages(await measurePublicPages({ database: bench, baseEnv: env, seconds: SECONDS, connections: CONNECTIONS }));
    const topology =
      !selected('topology variants') || process.env.BENCH_TOPOLOGY === '0'
        ? ''
        : formatTopologyVariants(await measureTopologyVariants({ database: bench, baseEnv: env, seconds: SECONDS, connections: CONNECTIONS }));
    const capacity =
      !selected('capacity') || process.env.BENCH_CAPACITY === '0'
        ? ''
        : formatCapacity(await measureCapacity({ database: bench, baseEnv: env, seconds: SECONDS, connections: CONNECTIONS }), env.DATABASE_POOL_MAX);
    const webhooks = !selected('webhook lag') || process.env.BENCH_WEBHOOKS === '0' ? '' : formatWebhookLag(await measureWebhookLag(bench, env));
    const fairness =
      !selected('webhook fairness') || process.env.BENCH_FAIRNESS === '0' ? '' : formatWebhookFairness(await measureWebhookFairness(bench, env));
    const bounded =
      !selected('bounded answers') || process.env.BENCH_BOUNDED === '0' ? '' : formatBoundedAnswers(await measureBoundedAnswers(bench, env, SECONDS));
    const tokenFlood = !selected('token flood') || process.env.BENCH_TOKEN === '0' ? '' : formatTokenFlood(await measureTokenFlood(bench, env));
    const documents =
      !selected('documents') || process.env.BENCH_DOCUMENTS === '0'
        ? ''
        : formatDocuments(await measureDocuments({ database: bench, baseEnv: env, seconds: SECONDS, connections: CONNECTIONS }));
    const report =
      formatResults(
        measurements,
        { ceiling: ceiling.requestsPerSecond, prismaFloor: prismaFloor.requestsPerSecond, pgFloor: pgFloor.requestsPerSecond },
        {
          rows: ROWS,
          seconds: SECONDS,
          connections: CONNECTIONS,
          maxRssMb: memory.maxRssMb(),
        },
      ) +
      formatFloorPairs(floorPairs) +
      formatFloorPairs(adapterFloorPairs, GET_AGAINST_ADAPTER_FLOOR) +
      writeFloorReports.join('') +
      tracing +
      events +
      variants +
      requestLog +
      publicPages +
      topology +
      capacity +
      webhooks +
      fairness +
      bounded +
      tokenFlood +
      documents;
    console.log(report);
    if (!process.env.BENCH_ONLY) {
      const file = path.join(PROJECT_ROOT, 'bench', 'results.md');
      const previous = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
      fs.writeFileSync(file, withHandWrittenNotes(report, previous));
      log('wrote bench/results.md');
    }
  } finally {
    memory.stop();
    for (const child of [service, reference, ...floors]) child.kill('SIGTERM');
    await bench.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
