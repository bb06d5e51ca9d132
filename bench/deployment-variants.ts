/**
 * Deployment variants, measured in the same `make bench` run as the main table (issue 16):
 *  - what the per-credential rate limiter costs a get: the service with its quota counted
 *    (RATE_LIMIT_REQUESTS large enough never to refuse) and with the limiter off (0), interleaved
 *    over BENCH_PAIRS pairs, because this machine's speed moves between runs;
 *  - get and create with one service process and with two (WEB_CONCURRENCY=2, node:cluster) on
 *    this 2-core machine that PostgreSQL and the load generator share.
 * `BENCH_VARIANTS=0` leaves them out; `BENCH_ONLY=variants` runs only them.
 */
import { accessToken, scenarioInputs, type BenchDatabase } from './setup';
import { log, measure } from './measure';
import { startService } from './processes';
import type { Measurement } from './report';
import { scenarios } from './scenarios';
import { median } from './median';

const PORT = 3796;
const PAIRS = Number(process.env.BENCH_PAIRS ?? 3);

export interface VariantRow {
  variant: string;
  measurement: Measurement;
}

type Settings = Record<string, string>;

interface Setup {
  database: BenchDatabase;
  baseEnv: Settings;
  seconds: number;
  connections: number;
}

/** Starts the service with `settings` over the base environment and measures the named scenarios. */
async function measureNamed(setup: Setup, names: string[], settings: Settings): Promise<Measurement[]> {
  const origin = `http://127.0.0.1:${PORT}`;
  const service = await startService(
    { ...setup.baseEnv, WEBHOOK_DELIVERY_CONCURRENCY: '0', ...settings, PORT: String(PORT), PUBLIC_ORIGIN: origin },
    `${origin}/rental-guarantee/openapi.json`,
  );
  try {
    // A cluster's primary only forks: its own CPU says nothing of the workers'.
    const pid = (settings['WEB_CONCURRENCY'] ?? '1') === '1' ? service.pid : undefined;
    const token = await accessToken(origin, setup.database.basic);
    const results: Measurement[] = [];
    for (const scenario of scenarios(scenarioInputs(setup.database, token)).filter((candidate) => names.includes(candidate.name))) {
      results.push(await measure(scenario, origin, setup.connections, pid, setup.seconds));
    }
    return results;
  } finally {
    service.kill('SIGTERM');
    await new Promise((resolve) => service.once('exit', resolve));
  }
}

export async function measureDeploymentVariants(setup: Setup): Promise<VariantRow[]> {
  const rows: VariantRow[] = [];
  log(`deployment variants: rate limiter on/off (${PAIRS} pairs), then 1 and 2 processes`);
  for (let pair = 1; pair <= PAIRS; pair++) {
    for (const [variant, points] of [
      ['rate limiter on', '10000000'],
      ['rate limiter off', '0'],
    ] as const) {
      const [get] = await measureNamed(setup, ['get by id'], { RATE_LIMIT_REQUESTS: points });
      rows.push({ variant: `${variant} (pair ${pair})`, measurement: get! });
    }
  }
  for (const processes of ['1', '2']) {
    const measured = await measureNamed(setup, ['get by id', 'create'], { WEB_CONCURRENCY: processes });
    for (const measurement of measured) rows.push({ variant: `${processes} process${processes === '1' ? '' : 'es'}`, measurement });
  }
  return rows;
}

/** The variants' table and the ratios that answer the two questions. */
export function formatVariants(rows: VariantRow[]): string {
  const rate = (prefix: string, name: string) =>
    rows.filter((row) => row.variant.startsWith(prefix) && row.measurement.name === name).map((row) => row.measurement.requestsPerSecond);
  const limiterRatio = median(rate('rate limiter on', 'get by id')) / median(rate('rate limiter off', 'get by id'));
  const scaling = (name: string) => (rate('2 processes', name)[0] ?? 0) / (rate('1 process', name)[0] ?? 1);
  return [
    '',
    '## Deployment variants (same run)',
    '',
    '| Variant | Operation | req/s | p50 ms | p99 ms | CPU ms/request: service, PostgreSQL, load generator | statuses |',
    '|---|---|---:|---:|---:|---:|---|',
    ...rows.map(({ variant, measurement: m }) => {
      const cpu = [m.cpu.serverMs, m.cpu.postgresMs, m.cpu.loadGeneratorMs].map((ms) => (ms === undefined ? '–' : ms.toFixed(2))).join(', ');
      const statuses = Object.entries(m.statuses)
        .map(([status, count]) => `${status}×${count}`)
        .join(' ');
      return `| ${variant} | ${m.name} | ${m.requestsPerSecond.toFixed(0)} | ${m.p50} | ${m.p99} | ${cpu} | ${statuses} |`;
    }),
    '',
    `Rate limiter: a get keeps ${limiterRatio.toFixed(2)} of its throughput with the quota counted (median of the pairs, limiter on / off).`,
    `Two processes / one: get ${scaling('get by id').toFixed(2)}, create ${scaling('create').toFixed(2)} ` +
      '(2 cores shared with PostgreSQL and the load generator; the CPU of a cluster\'s workers is not counted, "–").',
    '',
  ].join('\n');
}
