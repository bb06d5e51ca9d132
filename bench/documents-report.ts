/** The documents bench's section of bench/results.md (documents-bench.ts measures it). */
import type { DocumentsBench, TransferRow } from './documents-bench';

export const RSS_BOUND_MB = 320;

export function formatDocuments(bench: DocumentsBench): string {
  const rate = (operation: TransferRow['operation'], server: TransferRow['server']) =>
    bench.transfers.find((row) => row.operation === operation && row.server === server)?.requestsPerSecond ?? NaN;
  const statuses = (counts: Record<number, number>, errors = 0) =>
    [...Object.entries(counts).map(([status, count]) => `${status}×${count}`), ...(errors > 0 ? [`errors×${errors}`] : [])].join(' ');
  return [
    '',
    '## Documents (same run)',
    '',
    `The bench-documents agency, ${bench.connections} connections, ${bench.seconds} s each; the floor is Express + busboy + one bytea row (bench/document-floor-server.ts).`,
    '',
    '| Operation | server | req/s | MiB/s | p50 ms | p99 ms | CPU ms/request: server, PostgreSQL, load generator | statuses |',
    '|---|---|---:|---:|---:|---:|---:|---|',
    ...bench.transfers.map((row) => {
      const cpu = [row.cpu.serverMs, row.cpu.postgresMs, row.cpu.loadGeneratorMs].map((ms) => (ms === undefined ? '–' : ms.toFixed(1))).join(', ');
      return `| ${row.operation} | ${row.server} | ${row.requestsPerSecond.toFixed(1)} | ${row.mibPerSecond.toFixed(1)} | ${row.p50} | ${row.p99} | ${cpu} | ${statuses(row.statuses, row.errors)} |`;
    }),
    '',
    `Service / floor: upload ${(rate('upload 1 MiB PDF', 'service') / rate('upload 1 MiB PDF', 'floor')).toFixed(2)}, ` +
      `download ${(rate('download 1 MiB PDF', 'service') / rate('download 1 MiB PDF', 'floor')).toFixed(2)}.`,
    '',
    `| Concurrent transfers | requests | statuses | service RSS idle MB | peak MB | bound ${RSS_BOUND_MB} MB |`,
    '|---|---:|---|---:|---:|---|',
    ...bench.concurrent.map(
      (row) =>
        `| ${row.operation} | ${row.requests} | ${statuses(row.statuses)} | ${row.idleRssMb} | ${row.peakRssMb} | ${row.peakRssMb < RSS_BOUND_MB ? 'met' : 'NOT met'} |`,
    ),
    '',
  ].join('\n');
}
