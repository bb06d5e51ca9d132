/**
 * `make bench-compare OLD=<checkout>`: the same scenarios against this checkout's service and
 * another checkout's (built, e.g. the previous main), on the same seeded database, interleaved
 * (BENCH_PAIRS pairs, 3 by default), because this machine's speed moves by a third between runs.
 * The pairs alternate their order (old then new, new then old, ...): the side that runs second in a
 * pair was measured slower whichever it was (bench/results.md, "Unit of work"), so an even number
 * of pairs cancels that. Prints each run and the ratio new/old of the medians per scenario, and adds
 * them to bench/comparison.md as its newest block (the earlier blocks, and what was written by hand
 * about them, stay). BENCH_ONLY, BENCH_SECONDS and BENCH_CONNECTIONS apply.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../src/project-root';
import { log, measure } from './measure';
import { sampleMemory, startService } from './processes';
import { statusesCell, type Measurement } from './report';
import { scenarios } from './scenarios';
import { accessToken, prepareBench, restoreDecidedProposals, scenarioInputs, selected, type BenchDatabase } from './setup';
import { median } from './median';

const OLD = path.resolve(process.env.OLD ?? '');
const PAIRS = Number(process.env.BENCH_PAIRS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const PORTS = { old: 3792, new: 3793 };

interface Run {
  label: 'old' | 'new';
  measurement: Measurement;
}

async function measureCheckout(label: 'old' | 'new', bench: BenchDatabase, only: Set<string>): Promise<Run[]> {
  const root = label === 'old' ? OLD : PROJECT_ROOT;
  const origin = `http://127.0.0.1:${PORTS[label]}`;
  const env = {
    DATABASE_URL: bench.url,
    PORT: String(PORTS[label]),
    LOG_LEVEL: 'warn',
    DATABASE_POOL_MAX: '20',
    ENVIRONMENT: 'production',
    PUBLIC_ORIGIN: `http://127.0.0.1:${PORTS[label]}`,
    // The quota is counted on every request, as in production, but large enough never to refuse the load.
    RATE_LIMIT_REQUESTS: '10000000',
    RATE_LIMIT_AGENCY_REQUESTS: '10000000',
    COMMENT_QUOTA_PER_DAY: '10000000',
    // A day of runs stores more write responses than the bench agency's default 500,000 (then 429).
    IDEMPOTENCY_RECORDS_PER_AGENCY: '100000000',
    SCHEDULER_INTERVAL_MS: '0',
    // No webhook delivery worker (the bench agency subscribes no endpoint; a build without webhooks ignores it).
    WEBHOOK_DELIVERY_CONCURRENCY: '0',
    // Required in production (webhook secrets at rest); a fixed key is fine for a benchmark.
    WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
  };
  const service = await startService(env, `${origin}/rental-guarantee/openapi.json`, root);
  const memory = sampleMemory(service.pid!);
  try {
    const inputs = scenarioInputs(bench, await accessToken(origin, bench.basic));
    const runs: Run[] = [];
    for (const scenario of scenarios(inputs).filter((candidate) => only.has(candidate.name))) {
      if (scenario.decidesProposals) await restoreDecidedProposals(bench.url);
      memory.reset();
      const measurement = await measure(scenario, origin, CONNECTIONS, service.pid, SECONDS);
      runs.push({ label, measurement: { ...measurement, peakRssMb: memory.peakMb() } });
    }
    return runs;
  } finally {
    memory.stop();
    service.kill('SIGTERM');
    await new Promise((resolve) => service.once('exit', resolve));
  }
}

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(OLD, 'dist', 'src', 'main.js'))) throw new Error('OLD must name a built checkout (its dist/src/main.js)');
  const bench = await prepareBench();
  const names = new Set(
    scenarios(scenarioInputs(bench, 'x'))
      .map((scenario) => scenario.name)
      .filter(selected),
  );
  const runs: Run[] = [];
  try {
    for (let pair = 0; pair < PAIRS; pair += 1) {
      const order: Array<'old' | 'new'> = pair % 2 === 0 ? ['old', 'new'] : ['new', 'old'];
      log(`pair ${pair + 1} of ${PAIRS}: ${order.join(' then ')}`);
      for (const label of order) runs.push(...(await measureCheckout(label, bench, names)));
    }
  } finally {
    await bench.stop();
  }
  const lines = [
    `## ${OLD} against this checkout`,
    '',
    `Run ${new Date().toISOString()} on Node ${process.versions.node}: ${PAIRS} pairs (old then new, new then old, alternately), ${CONNECTIONS} connections, ${SECONDS} s per run; old = ${OLD}. Reproduce with \`make bench-compare OLD=<built checkout>\`.`,
    '',
    '| Operation | old req/s (each run) | new req/s (each run) | new/old (medians) | old p99 ms | new p99 ms | CPU ms/request, server + PostgreSQL (medians), old; new | new peak RSS MB | statuses, old; new |',
    '|---|---|---|---:|---|---|---|---:|---|',
  ];
  for (const name of names) {
    const of = (label: string) => runs.filter((run) => run.label === label && run.measurement.name === name).map((run) => run.measurement);
    const [old, fresh] = [of('old'), of('new')];
    const rate = (ms: Measurement[]) => ms.map((m) => m.requestsPerSecond.toFixed(0)).join(', ');
    const ratio = median(fresh.map((m) => m.requestsPerSecond)) / median(old.map((m) => m.requestsPerSecond));
    lines.push(
      `| ${name} | ${rate(old)} | ${rate(fresh)} | ${ratio.toFixed(2)} | ${old.map((m) => m.p99).join(', ')} | ${fresh.map((m) => m.p99).join(', ')} | ` +
        `${cpuOf(old)}; ${cpuOf(fresh)} | ${Math.max(...fresh.map((m) => m.peakRssMb))} | ${statusesOf(old)}; ${statusesOf(fresh)} |`,
    );
  }
  const report = `${lines.join('\n')}\n`;
  console.log(report);
  addNewestBlock(path.join(PROJECT_ROOT, 'bench', 'comparison.md'), report);
}

/** Every answer of a side's runs, summed by status: a scenario answered 409 or 429 shows it here. */
function statusesOf(runs: Measurement[]): string {
  const statuses: Record<number, number> = {};
  for (const run of runs)
    for (const [status, count] of Object.entries(run.statuses)) statuses[Number(status)] = (statuses[Number(status)] ?? 0) + count;
  return statusesCell({ statuses, errors: runs.reduce((total, run) => total + run.errors, 0) });
}

/** The file keeps its title and opening paragraph; the new block comes right after them, above the earlier ones. */
function addNewestBlock(file: string, block: string): void {
  const earlier = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Old and new main, interleaved\n\n';
  const firstBlock = earlier.indexOf('\n## ');
  const [head, rest] = firstBlock < 0 ? [`${earlier.trimEnd()}\n\n`, ''] : [earlier.slice(0, firstBlock + 1), earlier.slice(firstBlock + 1)];
  fs.writeFileSync(file, `${head}${block}\n${rest}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

/** Median CPU per request of the service and of PostgreSQL: which side a change moved. */
function cpuOf(measurements: Measurement[]): string {
  const figure = (values: Array<number | undefined>) => {
    const known = values.filter((value): value is number => value !== undefined);
    return known.length === 0 ? '–' : median(known).toFixed(2);
  };
  return `${figure(measurements.map((m) => m.cpu.serverMs))} + ${figure(measurements.map((m) => m.cpu.postgresMs))}`;
}
