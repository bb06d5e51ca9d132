/** The benchmark table, printed and written to bench/results.md. */
import type { CpuPerRequest } from './cpu-usage';
export interface Measurement {
  name: string;
  target?: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  statuses: Record<number, number>;
  errors: number;
  connections: number;
  /** Service resident memory peak while this operation ran. */
  peakRssMb: number;
  /** CPU milliseconds per request of the server measured, PostgreSQL and the load generator. */
  cpu: CpuPerRequest;
}

export interface References {
  /** The bare Express JSON endpoint. */
  ceiling: number;
  /** Express + one Prisma $queryRaw with the token check, and the same with a prepared pg statement. */
  prismaFloor: number;
  pgFloor: number;
}

export function formatResults(
  measurements: Measurement[],
  references: References,
  run: { rows: number; seconds: number; connections: number; maxRssMb: number },
): string {
  const lines = [
    '# Benchmark results',
    '',
    `Run ${new Date().toISOString()} on Node ${process.versions.node}, ${run.connections} connections, ${run.seconds} s per operation, one company with ` +
      `${run.rows.toLocaleString('en-US')} guarantees and ${run.rows.toLocaleString('en-US')} statement entries. ` +
      'Service, PostgreSQL and load generator share the same 2-core machine. Reproduce with `make bench`.',
    '',
    '| Operation | connections | req/s | fraction of Prisma floor, pg floor, ceiling | target | p50 ms | p99 ms | service RSS MB | CPU ms/request: server, PostgreSQL, load generator | statuses |',
    '|---|---:|---:|---:|---|---:|---:|---:|---:|---|',
    ...measurements.map(
      (m) =>
        `| ${m.name} | ${m.connections} | ${m.requestsPerSecond.toFixed(0)} | ${fractions(m.requestsPerSecond, references)} | ${m.target ?? ''} | ${m.p50} | ${m.p99} | ${m.peakRssMb || ''} | ${cpuCell(m.cpu)} | ${statusesCell(m)} |`,
    ),
    '',
    `Service peak resident memory under load: ${run.maxRssMb} MB (target < 200 MB).`,
    '',
    'CPU ms/request is the CPU time each party spent during the measurement divided by the requests answered ' +
      '(server: the reference server or the service; load generator: autocannon). With 2 cores, a rate of R req/s ' +
      "leaves at most 2000 / R ms of CPU per request for all three together, and the server's own main thread " +
      'at most 1000 / R ms.',
    '',
  ];
  return lines.join('\n');
}

function fractions(rate: number, references: References): string {
  return [references.prismaFloor, references.pgFloor, references.ceiling].map((reference) => (rate / reference).toFixed(2)).join(', ');
}

function cpuCell(cpu: CpuPerRequest): string {
  const figure = (ms: number | undefined) => (ms === undefined ? '–' : ms.toFixed(2));
  return `${figure(cpu.serverMs)}, ${figure(cpu.postgresMs)}, ${figure(cpu.loadGeneratorMs)}`;
}

/** The line under which bench/results.md holds notes written by hand (comparisons, analysis): kept by every run. */
export const HAND_WRITTEN_MARKER = '<!-- written by hand below this line; make bench keeps it -->';

export function withHandWrittenNotes(report: string, previous: string | undefined): string {
  const at = previous?.indexOf(HAND_WRITTEN_MARKER) ?? -1;
  return at < 0 ? `${report}\n${HAND_WRITTEN_MARKER}\n` : `${report}\n${previous!.slice(at)}`;
}

/** The answers a measurement got, by status (and transport errors): `201×1313 409×2`. */
export function statusesCell(m: Pick<Measurement, 'statuses' | 'errors'>): string {
  const counts = Object.entries(m.statuses).map(([status, count]) => `${status}×${count}`);
  return `${counts.join(' ')}${m.errors ? ` errors×${m.errors}` : ''}`;
}
