/** The growth bench's table: each operation on each target, and its growth against the 1M dataset. */
import { median } from '../median';
import { statusesCell } from '../report';
import type { OperationName } from './operations';
import type { Target } from './services';

export interface GrowthSample {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  serviceCpuMs: number;
  postgresCpuMs: number;
  statuses: Record<number, number>;
  errors: number;
}

export interface GrowthRun {
  seconds: number;
  connections: number;
  rounds: number;
  /** Seeding time and size of the growth dataset, when known. */
  dataset: string;
}

/** Samples of one operation on one target, one per round. */
export type Samples = Map<OperationName, Map<Target, GrowthSample[]>>;

export function formatGrowth(samples: Samples, targets: Target[], run: GrowthRun): string {
  const reference = targets.find((target) => target.dataset === '1M');
  const lines = [
    '# Growth benchmark results',
    '',
    `Run ${new Date().toISOString()} on Node ${process.versions.node}, ${run.connections} connection(s), ${run.seconds} s per operation and target, ` +
      `medians of ${run.rounds} round(s), the targets interleaved within each round. Reproduce with \`make bench-growth\` (docs/growth.md).`,
    '',
    run.dataset,
    '',
    'Samples (get by id, history, list by CPF): ' +
      targets
        .map((target) => `${target.agency.label}: guarantee ${target.agency.sample.id} (${target.agency.sample.historyEntries} history entries)`)
        .join('; ') +
      '.',
    '',
    '| Operation | target | req/s | p50 ms | p99 ms | CPU ms/request: service, PostgreSQL | p99 ÷ 1M | CPU ÷ 1M (service + PostgreSQL) | statuses |',
    '|---|---|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const [operation, byTarget] of samples) {
    const base = reference ? summary(byTarget.get(reference) ?? []) : undefined;
    for (const target of targets) {
      const runs = byTarget.get(target);
      if (!runs || runs.length === 0) continue;
      const m = summary(runs);
      const ratio = (value: number, of: number | undefined) => (of && target !== reference ? (value / of).toFixed(2) : '');
      lines.push(
        `| ${operation} | ${target.agency.label} | ${m.requestsPerSecond.toFixed(0)} | ${m.p50} | ${m.p99} | ` +
          `${m.serviceCpuMs.toFixed(2)}, ${m.postgresCpuMs.toFixed(2)} | ${ratio(m.p99, base?.p99)} | ` +
          `${ratio(m.serviceCpuMs + m.postgresCpuMs, base && base.serviceCpuMs + base.postgresCpuMs)} | ${statusesCell(m)} |`,
      );
    }
  }
  lines.push(
    '',
    "CPU ms/request: the CPU time of the service's process and of the target's PostgreSQL server (its postmaster's whole process tree) " +
      'during the measurement, divided by the requests answered. The issue asks each figure of the growth dataset to stay within 1.25 times ' +
      'the 1M dataset\'s; bench/results.md, "Growth", explains the plans behind them.',
    '',
  );
  return lines.join('\n');
}

function summary(runs: GrowthSample[]): GrowthSample {
  const statuses: Record<number, number> = {};
  for (const run of runs)
    for (const [status, count] of Object.entries(run.statuses)) statuses[Number(status)] = (statuses[Number(status)] ?? 0) + count;
  return {
    requestsPerSecond: median(runs.map((run) => run.requestsPerSecond)),
    p50: median(runs.map((run) => run.p50)),
    p99: median(runs.map((run) => run.p99)),
    serviceCpuMs: median(runs.map((run) => run.serviceCpuMs)),
    postgresCpuMs: median(runs.map((run) => run.postgresCpuMs)),
    statuses,
    errors: runs.reduce((total, run) => total + run.errors, 0),
  };
}
