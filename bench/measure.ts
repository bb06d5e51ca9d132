/** One autocannon measurement of a scenario, with its statuses, latency and CPU per request. */
import { countCpu } from './cpu-usage';
import type { Measurement } from './report';
import type { Scenario } from './scenarios';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon');

export const log = (line: string) => console.log(`[bench] ${line}`);

/**
 * Seconds of the same load before each measurement, not counted: a freshly started process runs
 * its first seconds unoptimised (V8 compiles hot functions as it goes), which would otherwise fall
 * on whichever operation is measured first, and more heavily on the service than on the floors.
 */
export const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);

export async function measure(
  scenario: Scenario,
  origin: string,
  connections: number,
  serverPid: number | undefined,
  seconds: number,
): Promise<Measurement> {
  log(`measuring: ${scenario.name} (${connections} connections)`);
  if (WARMUP_SECONDS > 0) await load(scenario, origin, connections, WARMUP_SECONDS, new Map());
  const statuses = new Map<number, number>();
  const cpu = countCpu(serverPid);
  const result = await load(scenario, origin, connections, seconds, statuses);
  return {
    name: scenario.name,
    target: scenario.target,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    statuses: Object.fromEntries([...statuses.entries()].sort(([a], [b]) => a - b)),
    errors: result.errors + result.timeouts,
    connections,
    peakRssMb: 0,
    cpu: cpu.perRequest(result.requests.total),
  };
}

export interface LoadResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
}

export function load(scenario: Scenario, origin: string, connections: number, seconds: number, statuses: Map<number, number>): Promise<LoadResult> {
  return autocannon({
    url: origin,
    connections,
    duration: seconds,
    requests: [
      {
        method: scenario.method,
        path: scenario.path,
        headers: scenario.headers,
        body: scenario.body,
        // autocannon calls setupRequest whenever the key is present, so it is only set when defined.
        ...(scenario.setupRequest ? { setupRequest: scenario.setupRequest } : {}),
        onResponse: (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1),
      },
    ],
  });
}
