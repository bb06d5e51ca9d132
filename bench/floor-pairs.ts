/**
 * An operation of the service as a fraction of its stack floor, measured in interleaved pairs:
 * floor, service, floor, service... (BENCH_PAIRS, 3 by default), both processes already running
 * and each run warmed up. The main table measures each of them once, minutes apart, and this
 * machine's speed moves by a third between runs: a ratio within pairs is what can be trusted.
 * Get by id against the Prisma floor (issue 13's target) and against the same floor reading through
 * Prisma's driver adapter as the service's busiest reads do, a create against the write floor
 * (issue 38's: write-floor-server.ts).
 */
import { log, measure } from './measure';
import { statusesCell, type Measurement } from './report';
import type { Scenario } from './scenarios';
import { median } from './median';

const PAIRS = Number(process.env.BENCH_PAIRS ?? 3);

export interface Contender {
  scenario: Scenario;
  origin: string;
  pid: number | undefined;
}

export interface FloorPair {
  floor: Measurement;
  service: Measurement;
}

/** What is compared, for the log and the report: `get by id` against `the Prisma floor`, with its target. */
export interface Comparison {
  operation: string;
  floor: string;
  target: string;
}

export const GET_AGAINST_PRISMA_FLOOR: Comparison = { operation: 'Get by id', floor: 'the Prisma floor', target: "issue 38's target: at least 0.9" };
export const GET_AGAINST_ADAPTER_FLOOR: Comparison = {
  operation: 'Get by id',
  floor: 'the adapter floor',
  target: 'the Prisma floor with the statement sent as the service sends its reads; issue 38 asks 0.9 of the Prisma floor',
};
/** A write against the write floor (a create's statements): issue 38 asks create, patch and comment at 0.8 of it. */
export const againstWriteFloor = (operation: string): Comparison => ({
  operation,
  floor: 'the write floor',
  target: "issue 38's target: at least 0.8",
});

export async function measureFloorPairs(
  floor: Contender,
  service: Contender,
  seconds: number,
  connections: number,
  comparison: Comparison = GET_AGAINST_PRISMA_FLOOR,
): Promise<FloorPair[]> {
  log(`${comparison.operation.toLowerCase()} against ${comparison.floor}: ${PAIRS} interleaved pairs`);
  const pairs: FloorPair[] = [];
  for (let pair = 0; pair < PAIRS; pair++) {
    pairs.push({
      floor: await measure(floor.scenario, floor.origin, connections, floor.pid, seconds),
      service: await measure(service.scenario, service.origin, connections, service.pid, seconds),
    });
  }
  return pairs;
}

export function formatFloorPairs(pairs: FloorPair[], comparison: Comparison = GET_AGAINST_PRISMA_FLOOR): string {
  if (pairs.length === 0) return '';
  const ratios = pairs.map(({ floor, service }) => service.requestsPerSecond / floor.requestsPerSecond);
  const cpu = (m: Measurement) => (m.cpu.serverMs === undefined ? '–' : m.cpu.serverMs.toFixed(2));
  const postgres = (m: Measurement) => (m.cpu.postgresMs === undefined ? '–' : m.cpu.postgresMs.toFixed(2));
  const title = comparison.floor.replace(/^the /, '');
  return [
    '',
    `## ${comparison.operation} against the ${title}, interleaved (same run)`,
    '',
    '| Pair | floor req/s | service req/s | service / floor | floor p99 ms | service p99 ms | CPU ms/request: floor, service | PostgreSQL CPU ms/request: floor, service | statuses: floor; service |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...pairs.map(
      ({ floor, service }, index) =>
        `| ${index + 1} | ${floor.requestsPerSecond.toFixed(0)} | ${service.requestsPerSecond.toFixed(0)} | ${ratios[index]!.toFixed(2)} | ` +
        `${floor.p99} | ${service.p99} | ${cpu(floor)}, ${cpu(service)} | ${postgres(floor)}, ${postgres(service)} | ${statusesCell(floor)}; ${statusesCell(service)} |`,
    ),
    '',
    `${comparison.operation} keeps ${median(ratios).toFixed(2)} of ${comparison.floor}'s throughput (median of the pairs; ${comparison.target}).`,
    '',
  ].join('\n');
}
