/**
 * `make bench-growth` (issue 38 item 5): get, list (no filter, by status, by CPF), history, statement
 * entries over 31 days, balance and create, for the largest and the median agency of the growth
 * dataset (seeded once and kept: seed-growth.ts) and for the 1,000,000-guarantee agency of `make
 * bench`, each with its p99 and its CPU per request (service and PostgreSQL). Within each round every
 * operation is measured on the three targets one after another, so that the machine's drift falls on
 * all three alike; the table holds the medians of the rounds. Writes bench/growth-results.md.
 *
 * Environment: BENCH_GROWTH_SECONDS (8), BENCH_GROWTH_CONNECTIONS (1: the p99 of a request on its
 * own, not of a queue), BENCH_GROWTH_ROUNDS (3), BENCH_GROWTH_ONLY (comma-separated words of
 * operation names; does not write the file), BENCH_GROWTH_DIR, BENCH_GROWTH_DB_PORT, BENCH_GROWTH_PORT
 * (3800: the services' first port), BENCH_DB_PORT (the 1M dataset's server, as `make bench`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/project-root';
import { load, log, WARMUP_SECONDS } from '../measure';
import { countTreeCpu } from '../process-tree-cpu';
import type { Scenario } from '../scenarios';
import { databaseSizes } from './dataset-size';
import { formatGrowth, type GrowthSample, type Samples } from './growth-report';
import { OPERATION_NAMES } from './operations';
import { startTargets, type Target } from './services';
import { openGrowth, openOneMillion, type Dataset } from './targets';

const SECONDS = Number(process.env.BENCH_GROWTH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_GROWTH_CONNECTIONS ?? 1);
const ROUNDS = Number(process.env.BENCH_GROWTH_ROUNDS ?? 3);
const ONLY = (process.env.BENCH_GROWTH_ONLY ?? '')
  .split(',')
  .map((word) => word.trim())
  .filter(Boolean);

async function main(): Promise<void> {
  const datasets: Dataset[] = [];
  try {
    datasets.push(await openOneMillion());
    datasets.push(await openGrowth(log));
    const growth = datasets[1]!;
    const { targets, stop } = await startTargets(datasets);
    try {
      const chosen = OPERATION_NAMES.filter((name) => ONLY.length === 0 || ONLY.some((word) => name.includes(word)));
      const samples: Samples = new Map(chosen.map((name) => [name, new Map()]));
      for (let round = 1; round <= ROUNDS; round++) {
        for (const name of chosen) {
          for (const target of targets) {
            log(`growth, round ${round}/${ROUNDS}: ${name} on ${target.agency.label}`);
            const sample = await measureOnce(target.operations[name], target);
            const byTarget = samples.get(name)!;
            byTarget.set(target, [...(byTarget.get(target) ?? []), sample]);
          }
          // The kept dataset stays as seeded: the next round's lists read the seeded agencies, not this round's creates.
          if (name === 'create') await growth.forgetBenchWrites();
        }
      }
      const report = formatGrowth(samples, targets, {
        seconds: SECONDS,
        connections: CONNECTIONS,
        rounds: ROUNDS,
        dataset: `Growth dataset: ${await databaseSizes(growth.url)}`,
      });
      console.log(report);
      if (ONLY.length === 0) {
        fs.writeFileSync(path.join(PROJECT_ROOT, 'bench', 'growth-results.md'), report);
        log('wrote bench/growth-results.md');
      }
    } finally {
      stop();
      await growthForget(datasets);
    }
  } finally {
    for (const dataset of datasets.reverse()) await dataset.stop();
  }
}

async function growthForget(datasets: Dataset[]): Promise<void> {
  for (const dataset of datasets) await dataset.forgetBenchWrites();
}

async function measureOnce(scenario: Scenario, target: Target): Promise<GrowthSample> {
  if (WARMUP_SECONDS > 0) await load(scenario, target.origin, CONNECTIONS, WARMUP_SECONDS, new Map());
  const statuses = new Map<number, number>();
  const service = countTreeCpu([target.servicePid]);
  const postgres = countTreeCpu([target.postgresPid]);
  const result = await load(scenario, target.origin, CONNECTIONS, SECONDS, statuses);
  const requests = Math.max(1, result.requests.total);
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    serviceCpuMs: service.spentMs() / requests,
    postgresCpuMs: postgres.spentMs() / requests,
    statuses: Object.fromEntries([...statuses.entries()].sort(([a], [b]) => a - b)),
    errors: result.errors + result.timeouts,
  };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
