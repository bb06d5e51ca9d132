/**
 * Issue 34 item 4: what anonymous readers of the public pages cost a partner. A partner's get by id
 * is measured alone, then beside 8 anonymous loops (4 on `/openapi.yaml`, 4 on `/docs`, gzip
 * accepted, no token) twice: with the deployment's anonymous quota (the default, most of the loops'
 * requests answered 429) and with it off (every request served its pre-built page). Before the
 * change, 8 such loops took a get from p50 5 ms to 1,694 ms (issue 34 finding 2). BENCH_PAIRS
 * interleaved rounds; `BENCH_PUBLIC_PAGES=0` leaves it out, `BENCH_ONLY='public pages'` runs it alone.
 */
import { accessToken, scenarioInputs, type BenchDatabase } from './setup';
import { load, log, measure, WARMUP_SECONDS } from './measure';
import { median } from './median';
import { startService } from './processes';
import type { Measurement } from './report';
import { scenarios, type Scenario } from './scenarios';

const PORT = 3798;
const PAIRS = Number(process.env.BENCH_PAIRS ?? 3);
const LOOPS_PER_PAGE = 4;

type Variant = 'alone' | 'beside loops, quota on' | 'beside loops, quota off';
const VARIANTS: Variant[] = ['alone', 'beside loops, quota on', 'beside loops, quota off'];

export interface PublicPagesRun {
  variant: Variant;
  pair: number;
  measurement: Measurement;
  /** Statuses the anonymous loops got. */
  loopStatuses: Record<number, number>;
}

interface Setup {
  database: BenchDatabase;
  baseEnv: Record<string, string>;
  seconds: number;
  connections: number;
}

const page = (path: string): Scenario => ({
  name: `anonymous ${path}`,
  method: 'GET',
  path: `/rental-guarantee${path}`,
  headers: { 'Accept-Encoding': 'gzip' },
});

async function measureVariant(setup: Setup, variant: Variant): Promise<Omit<PublicPagesRun, 'pair'>> {
  const origin = `http://127.0.0.1:${PORT}`;
  const quota: Record<string, string> = variant === 'beside loops, quota off' ? { ANONYMOUS_RATE_LIMIT_REQUESTS: '0' } : {};
  const service = await startService(
    { ...setup.baseEnv, ...quota, WEBHOOK_DELIVERY_CONCURRENCY: '0', PORT: String(PORT), PUBLIC_ORIGIN: origin },
    `${origin}/health/ready`,
  );
  try {
    const token = await accessToken(origin, setup.database.basic);
    const get = scenarios(scenarioInputs(setup.database, token)).find((scenario) => scenario.name === 'get by id')!;
    const loopStatuses = new Map<number, number>();
    // The loops run through the warm-up and the measurement of the get (a second of margin).
    const loops =
      variant === 'alone'
        ? []
        : ['/openapi.yaml', '/docs'].map((path) => load(page(path), origin, LOOPS_PER_PAGE, WARMUP_SECONDS + setup.seconds + 1, loopStatuses));
    const measurement = await measure(get, origin, setup.connections, service.pid, setup.seconds);
    await Promise.all(loops);
    return { variant, measurement: { ...measurement, name: `get by id, ${variant}` }, loopStatuses: Object.fromEntries(loopStatuses) };
  } finally {
    service.kill('SIGTERM');
  }
}

export async function measurePublicPages(setup: Setup): Promise<PublicPagesRun[]> {
  log(`public pages: get by id alone and beside ${2 * LOOPS_PER_PAGE} anonymous loops (${PAIRS} interleaved rounds)`);
  const runs: PublicPagesRun[] = [];
  for (let pair = 1; pair <= PAIRS; pair++) {
    const order = pair % 2 === 1 ? VARIANTS : [...VARIANTS].reverse();
    for (const variant of order) runs.push({ pair, ...(await measureVariant(setup, variant)) });
  }
  return runs;
}

export function formatPublicPages(runs: PublicPagesRun[]): string {
  const of = (pair: number, variant: Variant) => runs.find((run) => run.pair === pair && run.variant === variant)!.measurement;
  const pairs = [...new Set(runs.map((run) => run.pair))];
  const ratio = (variant: Variant) => median(pairs.map((pair) => of(pair, variant).requestsPerSecond / of(pair, 'alone').requestsPerSecond));
  const statuses = (counts: Record<number, number>) =>
    Object.entries(counts)
      .map(([status, count]) => `${status}×${count}`)
      .join(' ') || '–';
  return [
    '',
    '## Public pages beside a partner (same run)',
    '',
    '| Round | Variant | req/s | p50 ms | p99 ms | statuses | anonymous loops got |',
    '|---:|---|---:|---:|---:|---|---|',
    ...runs.map(
      ({ pair, measurement: m, loopStatuses }) =>
        `| ${pair} | ${m.name} | ${m.requestsPerSecond.toFixed(0)} | ${m.p50} | ${m.p99} | ${statuses(m.statuses)} | ${statuses(loopStatuses)} |`,
    ),
    '',
    `Public pages: beside ${2 * LOOPS_PER_PAGE} anonymous loops a get keeps ${ratio('beside loops, quota on').toFixed(2)} of its throughput ` +
      `with the anonymous quota and ${ratio('beside loops, quota off').toFixed(2)} without it (medians of the rounds' ratios to the get alone).`,
    '',
  ].join('\n');
}
