/** One autocannon measurement of a scenario, with its statuses, latency and CPU per request. */
import { countCpu } from './cpu-usage';
import type { Measurement } from './report';
import type { Scenario } from './scenarios';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon');

export const log = (line: string) => console.log(`[bench] ${line}`);

export async function measure(
  scenario: Scenario,
  origin: string,
  connections: number,
  serverPid: number | undefined,
  seconds: number,
): Promise<Measurement> {
  log(`measuring: ${scenario.name} (${connections} connections)`);
  const statuses = new Map<number, number>();
  const cpu = countCpu(serverPid);
  const result = await autocannon({
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
