/**
 * Get by id as a fraction of the Prisma stack floor (issue 13's target), measured in interleaved
 * pairs: floor, service, floor, service... (BENCH_PAIRS, 3 by default), both processes already
 * running and each run warmed up. The main table measures each of them once, minutes apart, and
 * this machine's speed moves by a third between runs: a ratio within pairs is what can be trusted.
 */
import { log, measure } from './measure';
import type { Measurement } from './report';
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

export async function measureFloorPairs(floor: Contender, service: Contender, seconds: number, connections: number): Promise<FloorPair[]> {
  log(`get by id against the Prisma floor: ${PAIRS} interleaved pairs`);
  const pairs: FloorPair[] = [];
  for (let pair = 0; pair < PAIRS; pair++) {
    pairs.push({
      floor: await measure(floor.scenario, floor.origin, connections, floor.pid, seconds),
      service: await measure(service.scenario, service.origin, connections, service.pid, seconds),
    });
  }
  return pairs;
}

export function formatFloorPairs(pairs: FloorPair[]): string {
  if (pairs.length === 0) return '';
  const ratios = pairs.map(({ floor, service }) => service.requestsPerSecond / floor.requestsPerSecond);
  const cpu = (m: Measurement) => (m.cpu.serverMs === undefined ? '–' : m.cpu.serverMs.toFixed(2));
  return [
    '',
    '## Get by id against the Prisma floor, interleaved (same run)',
    '',
    '| Pair | floor req/s | service req/s | service / floor | floor p99 ms | service p99 ms | CPU ms/request: floor, service |',
    '|---:|---:|---:|---:|---:|---:|---:|',
    ...pairs.map(
      ({ floor, service }, index) =>
        `| ${index + 1} | ${floor.requestsPerSecond.toFixed(0)} | ${service.requestsPerSecond.toFixed(0)} | ${ratios[index]!.toFixed(2)} | ` +
        `${floor.p99} | ${service.p99} | ${cpu(floor)}, ${cpu(service)} |`,
    ),
    '',
    `Get by id keeps ${median(ratios).toFixed(2)} of the Prisma floor's throughput (median of the pairs; issue 25's target: at least 0.8).`,
    '',
  ].join('\n');
}
