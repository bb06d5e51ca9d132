/**
 * What the agencies' request log costs a get (issue 26 item 1), in the same `make bench` run: the
 * service with REQUEST_LOG=on (a line per request, buffered and written in batches) and with
 * REQUEST_LOG=off, measured over BENCH_PAIRS interleaved pairs because this machine's speed moves
 * between runs. The target: a get keeps at least 0.9 of its throughput with the log on. The lines
 * written are counted from the table, to show the log was really written during the "on" runs.
 * `BENCH_REQUEST_LOG=0` leaves it out; `BENCH_ONLY='request log'` runs only it (with the reference
 * and the floors).
 */
import { Client } from 'pg';
import { accessToken, scenarioInputs, type BenchDatabase } from './setup';
import { log, measure } from './measure';
import { startService } from './processes';
import type { Measurement } from './report';
import { scenarios } from './scenarios';
import { median } from './median';

const PORT = 3797;
const PAIRS = Number(process.env.BENCH_PAIRS ?? 3);
const TARGET = 0.9;

export interface RequestLogRun {
  setting: 'on' | 'off';
  pair: number;
  measurement: Measurement;
  /** Lines the run added to the request log table. */
  linesWritten: number;
}

interface Setup {
  database: BenchDatabase;
  baseEnv: Record<string, string>;
  seconds: number;
  connections: number;
}

/**
 * Lines of requests that arrived since `since` (the services stamp them with this machine's clock):
 * a count of the whole table would also see the lines that another service of the same run (make
 * bench's own, whose bound is the default) prunes meanwhile.
 */
async function countLinesSince(url: string, since: Date): Promise<number> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query<{ n: string }>('SELECT count(*)::text AS n FROM request_log WHERE at >= $1', [since])).rows[0]!.n);
  } finally {
    await client.end();
  }
}

async function measureGet(setup: Setup, setting: 'on' | 'off'): Promise<{ measurement: Measurement; linesWritten: number }> {
  const origin = `http://127.0.0.1:${PORT}`;
  // Far above what a run writes: the pruning of the bound never runs during a measurement.
  const service = await startService(
    {
      ...setup.baseEnv,
      WEBHOOK_DELIVERY_CONCURRENCY: '0',
      REQUEST_LOG: setting,
      REQUEST_LOG_LINES_PER_AGENCY: '10000000',
      PORT: String(PORT),
      PUBLIC_ORIGIN: origin,
    },
    `${origin}/rental-guarantee/openapi.json`,
  );
  try {
    const token = await accessToken(origin, setup.database.basic);
    const since = new Date();
    const get = scenarios(scenarioInputs(setup.database, token)).find((scenario) => scenario.name === 'get by id')!;
    const measurement = await measure(get, origin, setup.connections, service.pid, setup.seconds);
    // The last second of lines is written when the service stops (its buffer is flushed then).
    service.kill('SIGTERM');
    await new Promise((resolve) => service.once('exit', resolve));
    return { measurement, linesWritten: await countLinesSince(setup.database.url, since) };
  } finally {
    if (service.exitCode === null) service.kill('SIGTERM');
  }
}

export async function measureRequestLogCost(setup: Setup): Promise<RequestLogRun[]> {
  log(`request log: get by id with REQUEST_LOG on and off (${PAIRS} interleaved pairs)`);
  const runs: RequestLogRun[] = [];
  for (let pair = 1; pair <= PAIRS; pair++) {
    // Alternate which comes first, so neither side always runs on a warmer machine.
    const order: Array<'on' | 'off'> = pair % 2 === 1 ? ['on', 'off'] : ['off', 'on'];
    for (const setting of order) runs.push({ setting, pair, ...(await measureGet(setup, setting)) });
  }
  return runs;
}

export function formatRequestLogCost(runs: RequestLogRun[]): string {
  const rate = (pair: number, setting: 'on' | 'off') =>
    runs.find((run) => run.pair === pair && run.setting === setting)!.measurement.requestsPerSecond;
  const pairs = [...new Set(runs.map((run) => run.pair))];
  const ratios = pairs.map((pair) => rate(pair, 'on') / rate(pair, 'off'));
  const ratio = median(ratios);
  return [
    '',
    '## Request log cost (same run)',
    '',
    '| Pair | REQUEST_LOG | Operation | req/s | p50 ms | p99 ms | CPU ms/request: service, PostgreSQL, load generator | lines written | statuses |',
    '|---:|---|---|---:|---:|---:|---:|---:|---|',
    ...runs.map(({ pair, setting, measurement: m, linesWritten }) => {
      const cpu = [m.cpu.serverMs, m.cpu.postgresMs, m.cpu.loadGeneratorMs].map((ms) => (ms === undefined ? '–' : ms.toFixed(2))).join(', ');
      const statuses = Object.entries(m.statuses)
        .map(([status, count]) => `${status}×${count}`)
        .join(' ');
      return `| ${pair} | ${setting} | ${m.name} | ${m.requestsPerSecond.toFixed(0)} | ${m.p50} | ${m.p99} | ${cpu} | ${linesWritten} | ${statuses} |`;
    }),
    '',
    `Request log: a get keeps ${ratio.toFixed(2)} of its throughput with the log on (median of the pairs' on/off ratios: ` +
      `${ratios.map((one) => one.toFixed(2)).join(', ')}; target ≥ ${TARGET}: ${ratio >= TARGET ? 'met' : 'NOT met'}).`,
    '',
  ].join('\n');
}
