/**
 * What traces cost a get (issue 38 item 1), in the same `make bench` run: the service without any
 * OTEL_* variable (the SDK not even loaded) and with tracing on as an operator would turn it on
 * (OTLP over HTTP, protobuf, the SDK's default; `parentbased_traceidratio` at 10 %), exporting to a
 * collector stand-in in this process that accepts and counts what it is sent. Measured over
 * BENCH_PAIRS interleaved pairs, each service started afresh. Target: on keeps at least 0.9 of off.
 * Off against the main before tracing (target 0.98) is `make bench-compare OLD=<built main>`.
 * `BENCH_TRACING=0` leaves it out; `BENCH_ONLY=tracing` runs only it (with the reference and the floors);
 * `BENCH_TRACING_SAMPLING` sets the ratio (0.1 by default).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { accessToken, scenarioInputs, type BenchDatabase } from './setup';
import { log, measure } from './measure';
import { startService } from './processes';
import type { Measurement } from './report';
import { scenarios } from './scenarios';
import { median } from './median';

const PORT = 3798;
const PAIRS = Number(process.env.BENCH_PAIRS ?? 3);
// BENCH_TRACING_SAMPLING changes the ratio (0: what the SDK and its instrumentations cost when nothing is sampled).
const SAMPLING = process.env.BENCH_TRACING_SAMPLING ?? '0.1';
const TARGET = 0.9;

type Setting = 'off' | 'on';

export interface TracingRun {
  setting: Setting;
  pair: number;
  measurement: Measurement;
  /** Export requests the collector stand-in received during the run (0 when off). */
  exports: number;
}

interface Setup {
  database: BenchDatabase;
  baseEnv: Record<string, string>;
  seconds: number;
  connections: number;
}

/** A collector stand-in: answers every OTLP export 200 and counts them. */
async function startCollector(): Promise<{ endpoint: string; exports: () => number; close: () => Promise<void> }> {
  let exports = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      exports += 1;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports: () => exports,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function measureGet(setup: Setup, setting: Setting, collector: string): Promise<Measurement> {
  const origin = `http://127.0.0.1:${PORT}`;
  const tracing = { OTEL_EXPORTER_OTLP_ENDPOINT: collector, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: SAMPLING };
  const service = await startService(
    { ...setup.baseEnv, WEBHOOK_DELIVERY_CONCURRENCY: '0', PORT: String(PORT), PUBLIC_ORIGIN: origin, ...(setting === 'on' ? tracing : {}) },
    `${origin}/rental-guarantee/openapi.json`,
  );
  try {
    const token = await accessToken(origin, setup.database.basic);
    const get = scenarios(scenarioInputs(setup.database, token)).find((scenario) => scenario.name === 'get by id')!;
    return await measure(get, origin, setup.connections, service.pid, setup.seconds);
  } finally {
    service.kill('SIGTERM');
    await new Promise((resolve) => service.once('exit', resolve));
  }
}

export async function measureTracingCost(setup: Setup): Promise<TracingRun[]> {
  log(`tracing: get by id without OTEL_* and with traces at ${SAMPLING} sampling (${PAIRS} interleaved pairs)`);
  const collector = await startCollector();
  const runs: TracingRun[] = [];
  try {
    for (let pair = 1; pair <= PAIRS; pair++) {
      // Alternate which comes first, so neither side always runs on a warmer machine.
      const order: Setting[] = pair % 2 === 1 ? ['on', 'off'] : ['off', 'on'];
      for (const setting of order) {
        const before = collector.exports();
        const measurement = await measureGet(setup, setting, collector.endpoint);
        runs.push({ setting, pair, measurement, exports: collector.exports() - before });
      }
    }
  } finally {
    await collector.close();
  }
  return runs;
}

export function formatTracingCost(runs: TracingRun[]): string {
  const rate = (pair: number, setting: Setting) => runs.find((run) => run.pair === pair && run.setting === setting)!.measurement.requestsPerSecond;
  const pairs = [...new Set(runs.map((run) => run.pair))];
  const ratios = pairs.map((pair) => rate(pair, 'on') / rate(pair, 'off'));
  const ratio = median(ratios);
  return [
    '',
    '## Tracing cost (same run)',
    '',
    `Off: no OTEL_* variable (the SDK is not loaded). On: \`OTEL_EXPORTER_OTLP_ENDPOINT\` (http/protobuf), \`OTEL_TRACES_SAMPLER=parentbased_traceidratio\`, \`OTEL_TRACES_SAMPLER_ARG=${SAMPLING}\`.`,
    '',
    '| Pair | tracing | Operation | req/s | p50 ms | p99 ms | CPU ms/request: service, PostgreSQL, load generator | exports received | statuses |',
    '|---:|---|---|---:|---:|---:|---:|---:|---|',
    ...runs.map(({ pair, setting, measurement: m, exports }) => {
      const cpu = [m.cpu.serverMs, m.cpu.postgresMs, m.cpu.loadGeneratorMs].map((ms) => (ms === undefined ? '–' : ms.toFixed(2))).join(', ');
      const statuses = Object.entries(m.statuses)
        .map(([status, count]) => `${status}×${count}`)
        .join(' ');
      return `| ${pair} | ${setting} | ${m.name} | ${m.requestsPerSecond.toFixed(0)} | ${m.p50} | ${m.p99} | ${cpu} | ${exports} | ${statuses} |`;
    }),
    '',
    `Tracing: a get keeps ${ratio.toFixed(2)} of its throughput with traces on at ${SAMPLING} sampling (median of the pairs' on/off ratios: ` +
      `${ratios.map((one) => one.toFixed(2)).join(', ')}; target ≥ ${TARGET}: ${ratio >= TARGET ? 'met' : 'NOT met'}).`,
    '',
  ].join('\n');
}
