/**
 * Topology variants (issue 24), measured in the same `make bench` run, interleaved over
 * BENCH_PAIRS rounds because this machine's speed moves between runs:
 *  - what naming statements is worth, and what a transaction pooler costs: get and create straight
 *    on PostgreSQL with the statement cache on (DATABASE_STATEMENT_CACHE=on, the default there) and
 *    off, and through PgBouncer 1.18 in transaction mode (statements unnamed, as it needs);
 *  - what the shared quota store costs a get: the quota counted in memory by the process against
 *    counted in Redis (RATE_LIMIT_REDIS_URL), one process each.
 * PgBouncer and Redis are Debian's packages (scripts/topology/install-packages.sh). `BENCH_ONLY=topology`
 * runs only these (with the references), `BENCH_TOPOLOGY=0` leaves them out.
 */
import { startPgBouncer } from '../scripts/topology/pgbouncer';
import { startRedis } from '../scripts/topology/redis-server';
import { accessToken, scenarioInputs, type BenchDatabase } from './setup';
import { log, measure } from './measure';
import { startService } from './processes';
import type { Measurement } from './report';
import { scenarios } from './scenarios';
import { median } from './median';

const PORT = 3797;
const PAIRS = Number(process.env.BENCH_PAIRS ?? 3);

export interface TopologyRow {
  variant: string;
  measurement: Measurement;
}

interface Setup {
  database: BenchDatabase;
  baseEnv: Record<string, string>;
  seconds: number;
  connections: number;
}

async function measureWith(setup: Setup, names: string[], settings: Record<string, string>): Promise<Measurement[]> {
  const origin = `http://127.0.0.1:${PORT}`;
  const service = await startService(
    { ...setup.baseEnv, WEBHOOK_DELIVERY_CONCURRENCY: '0', ...settings, PORT: String(PORT), PUBLIC_ORIGIN: origin },
    `${origin}/rental-guarantee/openapi.json`,
  );
  try {
    const token = await accessToken(origin, setup.database.basic);
    const results: Measurement[] = [];
    for (const scenario of scenarios(scenarioInputs(setup.database, token)).filter((candidate) => names.includes(candidate.name))) {
      results.push(await measure(scenario, origin, setup.connections, service.pid, setup.seconds));
    }
    return results;
  } finally {
    service.kill('SIGTERM');
    await new Promise((resolve) => service.once('exit', resolve));
  }
}

export async function measureTopologyVariants(setup: Setup): Promise<TopologyRow[]> {
  const direct = setup.database.url;
  // As many server connections as the service's pool: the pooler then only adds its hop.
  const bouncer = await startPgBouncer(direct, Number(setup.baseEnv['DATABASE_POOL_MAX'] ?? 20));
  const redis = await startRedis();
  const pooled = bouncer.url(new URL(direct).pathname.slice(1));
  const rows: TopologyRow[] = [];
  try {
    log(`topology variants: statement cache on/off and PgBouncer, quota in memory/Redis (${PAIRS} pairs)`);
    for (let round = 1; round <= PAIRS; round++) {
      for (const [variant, settings] of [
        ['direct, statements named', { DATABASE_STATEMENT_CACHE: 'on' }],
        ['direct, statements unnamed', { DATABASE_STATEMENT_CACHE: 'off' }],
        ['PgBouncer (transaction mode), unnamed', { DATABASE_URL: pooled, DATABASE_DIRECT_URL: direct }],
      ] as const) {
        for (const measurement of await measureWith(setup, ['get by id', 'create'], settings))
          rows.push({ variant: `${variant} (round ${round})`, measurement });
      }
      for (const [variant, settings] of [
        ['quota in memory', {}],
        ['quota in Redis', { RATE_LIMIT_REDIS_URL: redis.url }],
      ] as const) {
        const [get] = await measureWith(setup, ['get by id'], settings);
        rows.push({ variant: `${variant} (round ${round})`, measurement: get! });
      }
    }
  } finally {
    await bouncer.stop();
    await redis.stop();
  }
  return rows;
}

export function formatTopologyVariants(rows: TopologyRow[]): string {
  const rate = (prefix: string, name: string) =>
    median(rows.filter((row) => row.variant.startsWith(prefix) && row.measurement.name === name).map((row) => row.measurement.requestsPerSecond));
  const cpu = (prefix: string, name: string, part: 'serverMs' | 'postgresMs') =>
    median(rows.filter((row) => row.variant.startsWith(prefix) && row.measurement.name === name).map((row) => row.measurement.cpu[part] ?? 0));
  const ratio = (a: string, b: string, name: string) => (rate(a, name) / rate(b, name)).toFixed(2);
  return [
    '',
    '## Topology variants (same run, issue 24)',
    '',
    '| Variant | Operation | req/s | p50 ms | p99 ms | CPU ms/request: service, PostgreSQL, load generator | statuses |',
    '|---|---|---:|---:|---:|---:|---|',
    ...rows.map(({ variant, measurement: m }) => {
      const parts = [m.cpu.serverMs, m.cpu.postgresMs, m.cpu.loadGeneratorMs].map((ms) => (ms === undefined ? '–' : ms.toFixed(2))).join(', ');
      const statuses = Object.entries(m.statuses)
        .map(([status, count]) => `${status}×${count}`)
        .join(' ');
      return `| ${variant} | ${m.name} | ${m.requestsPerSecond.toFixed(0)} | ${m.p50} | ${m.p99} | ${parts} | ${statuses} |`;
    }),
    '',
    'Medians of the rounds, as ratios:',
    `- statements unnamed / named, straight on PostgreSQL: get ${ratio('direct, statements unnamed', 'direct, statements named', 'get by id')}, ` +
      `create ${ratio('direct, statements unnamed', 'direct, statements named', 'create')} ` +
      `(PostgreSQL CPU ms per create ${cpu('direct, statements named', 'create', 'postgresMs').toFixed(2)} named, ` +
      `${cpu('direct, statements unnamed', 'create', 'postgresMs').toFixed(2)} unnamed);`,
    `- through PgBouncer / straight, both unnamed: get ${ratio('PgBouncer', 'direct, statements unnamed', 'get by id')}, ` +
      `create ${ratio('PgBouncer', 'direct, statements unnamed', 'create')}; PgBouncer's own CPU is not counted;`,
    `- quota in Redis / in memory: get ${ratio('quota in Redis', 'quota in memory', 'get by id')} ` +
      `(service CPU ms per get ${cpu('quota in memory', 'get by id', 'serverMs').toFixed(2)} in memory, ${cpu('quota in Redis', 'get by id', 'serverMs').toFixed(2)} with Redis; Redis's own CPU is not counted).`,
    '',
  ].join('\n');
}
