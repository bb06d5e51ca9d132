/**
 * `make bench-growth-plans`: EXPLAIN (ANALYZE, BUFFERS) of every statement each growth-bench
 * operation runs, on the 1M dataset and on the growth dataset's largest and median agencies, as the
 * service really runs them: auto_explain (PostgreSQL's own module) is loaded into the sessions of a
 * service started for the purpose, logs the plan of each statement with its parameters, and this
 * reads the servers' logs. Each operation is sent REPEAT times in a row; the plan kept for each
 * statement is its last one (cache warm, and the plan the statement cache settled on after the
 * first five executions: src/database/statement-cache.ts). Buffer counts and plan shapes do not
 * depend on the machine's load, so this may run on a shared machine. Writes .data/growth-plans.md.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { PROJECT_ROOT } from '../../src/project-root';
import { log } from '../measure';
import type { Scenario } from '../scenarios';
import { OPERATION_NAMES } from './operations';
import { planLog } from './plan-log';
import { formatPlans, lastPlans, type ObservedPlans } from './plans-report';
import { startTargets, type Target } from './services';
import { openGrowth, openOneMillion, type Dataset } from './targets';

const REPEAT = 7;
const AUTO_EXPLAIN: Array<[string, string]> = [
  ['session_preload_libraries', 'auto_explain'],
  ['auto_explain.log_min_duration', '0'],
  ['auto_explain.log_analyze', 'on'],
  ['auto_explain.log_buffers', 'on'],
  ['auto_explain.log_nested_statements', 'on'],
];

async function main(): Promise<void> {
  const logs = { '1M': planLog(), growth: planLog() };
  const datasets: Dataset[] = [];
  try {
    datasets.push(await openOneMillion(logs['1M'].onLog));
    datasets.push(await openGrowth(log, logs.growth.onLog));
    for (const dataset of datasets) await explainSessions(dataset.url, true);
    const { targets, stop } = await startTargets(datasets);
    const observed: ObservedPlans = [];
    try {
      for (const name of OPERATION_NAMES) {
        for (const target of targets) {
          log(`plans: ${name} on ${target.agency.label}`);
          const planText = logs[target.dataset];
          const mark = planText.mark();
          const statuses = await sendRepeatedly(target, target.operations[name]);
          await new Promise((resolve) => setTimeout(resolve, 500));
          observed.push({ operation: name, target: target.agency.label, statuses, statements: lastPlans(planText.plansSince(mark), REPEAT) });
        }
        if (name === 'create') for (const dataset of datasets) await dataset.forgetBenchWrites();
      }
    } finally {
      stop();
      for (const dataset of datasets) await explainSessions(dataset.url, false);
    }
    const file = path.join(PROJECT_ROOT, '.data', 'growth-plans.md');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(
      file,
      formatPlans(
        observed,
        targets.map((target) => target.agency.label),
      ),
    );
    log(`wrote ${path.relative(PROJECT_ROOT, file)}`);
  } finally {
    for (const dataset of datasets.reverse()) await dataset.stop();
  }
}

/** Loads auto_explain into the database's new sessions, or stops doing so. */
async function explainSessions(url: string, on: boolean): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const database = (await client.query<{ name: string }>('SELECT current_database() AS name')).rows[0]!.name;
    const quoted = `"${database.replace(/"/g, '""')}"`;
    for (const [setting, value] of AUTO_EXPLAIN) {
      await client.query(on ? `ALTER DATABASE ${quoted} SET ${setting} = '${value}'` : `ALTER DATABASE ${quoted} RESET ${setting}`);
    }
  } finally {
    await client.end();
  }
}

async function sendRepeatedly(target: Target, scenario: Scenario): Promise<number[]> {
  const statuses: number[] = [];
  for (let attempt = 0; attempt < REPEAT; attempt++) {
    const request = scenario.setupRequest
      ? scenario.setupRequest({ headers: { ...scenario.headers }, path: scenario.path, body: scenario.body })
      : { headers: scenario.headers ?? {}, path: scenario.path, body: scenario.body };
    const response = await fetch(`${target.origin}${request.path}`, { method: scenario.method, headers: request.headers, body: request.body });
    await response.arrayBuffer();
    statuses.push(response.status);
  }
  return statuses;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
