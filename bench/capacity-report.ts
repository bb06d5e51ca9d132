/**
 * The capacity section of bench/results.md: every run, then what the CPU per request projects
 * (requests per second per core of each tier) — the figures docs/deployment.md's sizing table is made from.
 */
import os from 'node:os';
import { POOLER_SIZE, type CapacityRow, type Route } from './capacity';
import { statusesCell } from './report';

const mean = (values: number[]) => (values.length === 0 ? 0 : values.reduce((sum, one) => sum + one, 0) / values.length);
const perCore = (ms: number) => (ms > 0 ? Math.round(1000 / ms).toLocaleString('en-US') : '–');

export function formatCapacity(rows: CapacityRow[], poolMax: string): string {
  const table = rows.map((row) => {
    const { service, postgres, pooler, loadGenerator } = row.cpuMs;
    const cpu = [service, postgres, row.route === 'PgBouncer' ? pooler : undefined, loadGenerator]
      .map((ms) => (ms === undefined ? '–' : ms.toFixed(2)))
      .join(', ');
    const statuses = statusesCell(row);
    const { open, active } = row.postgresConnections;
    return `| ${row.route} | ${row.processes} | ${row.operation} | ${row.requestsPerSecond.toFixed(0)} | ${row.p50} | ${row.p99} | ${cpu} | ${open}, ${active} | ${row.loadAverage.toFixed(1)} | ${statuses} |`;
  });
  const projection = (['get by id', 'create'] as const).flatMap((operation) =>
    (['direct', 'PgBouncer'] as Route[]).map((route) => {
      // More processes than cores measure the machine's oversubscription, not what a request costs.
      const of = rows.filter((row) => row.route === route && row.operation === operation && row.processes <= os.cpus().length);
      const ms = (part: keyof CapacityRow['cpuMs']) => mean(of.map((row) => row.cpuMs[part]));
      const [service, postgres, pooler] = [ms('service'), ms('postgres'), ms('pooler')];
      return (
        `| ${operation} | ${route} | ${service.toFixed(2)} | ${postgres.toFixed(2)} | ${route === 'PgBouncer' ? pooler.toFixed(2) : '–'} | ` +
        `${perCore(service)} | ${perCore(postgres)} | ${route === 'PgBouncer' ? perCore(pooler) : '–'} |`
      );
    }),
  );
  return [
    '',
    '## Capacity: 1, 2 and 4 processes, direct and through PgBouncer (same run, issue 24)',
    '',
    `Get by id and create (a fresh \`Idempotency-Key\` each) with \`WEB_CONCURRENCY\` 1, 2 and 4, \`DATABASE_POOL_MAX\`=${poolMax} per process, ` +
      `straight on PostgreSQL (statement cache on) and through PgBouncer 1.18 in transaction mode (\`default_pool_size\`=${POOLER_SIZE}, statements unnamed). ` +
      "CPU per request from /proc: the service's whole process tree (a cluster's primary, which counts the quota, and its workers), this PostgreSQL " +
      "server's processes, PgBouncer, the load generator. PostgreSQL connections: the most server connections of the measured service (its pool and listener, directly or lent by PgBouncer) seen during the run " +
      '(sampled every 250 ms), open and active. Load: the 1-minute load average of this 2-core machine, shared with other work, at the end of the run. ' +
      'Reproduce alone with `BENCH_ONLY=capacity make bench`.',
    '',
    '| Route | Processes | Operation | req/s | p50 ms | p99 ms | CPU ms/request: service, PostgreSQL, PgBouncer, load generator | PostgreSQL connections: open, active | load | statuses |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|---|',
    ...table,
    '',
    `Projected from the CPU per request (means over the runs with at most as many processes as this machine's ${os.cpus().length} cores; ` +
      'one core of a tier serves 1000 / its ms per request; PgBouncer is single-threaded: one core in all):',
    '',
    '| Operation | Route | service ms | PostgreSQL ms | PgBouncer ms | req/s per service core | req/s per PostgreSQL core | PgBouncer ceiling req/s |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
    ...projection,
    '',
  ].join('\n');
}
