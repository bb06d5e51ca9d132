/**
 * Capacity, measured to be projected (issue 24 item 7): get by id and create (each with its own
 * Idempotency-Key) with 1, 2 and 4 service processes (WEB_CONCURRENCY: one process, or a cluster
 * primary and its workers), straight on PostgreSQL (statement cache on, the default there) and
 * through PgBouncer 1.18 in transaction mode (statements unnamed, the direct connection kept for the
 * listener). Throughput on this shared 2-core machine moves with the other sessions' load; what a
 * request costs in CPU does much less, so each run also records the CPU time per request of the
 * service's whole process tree, of this PostgreSQL server's processes (postmaster, backends,
 * background writers; the 4 samples a second below add a little), of PgBouncer and of the load
 * generator, read from /proc, and the most PostgreSQL connections the measured service held (told
 * apart by their application_name) while it ran.
 * `BENCH_ONLY=capacity` runs only this (with the references), `BENCH_CAPACITY=0` leaves it out;
 * BENCH_CAPACITY_PROCESSES (1,2,4), BENCH_POOLER_SIZE (PgBouncer's default_pool_size, 10).
 */
import os from 'node:os';
import { Client } from 'pg';
import { startPgBouncer } from '../scripts/topology/pgbouncer';
import { accessToken, scenarioInputs, type BenchDatabase } from './setup';
import { load, log, WARMUP_SECONDS } from './measure';
import { countTreeCpu, parentOf } from './process-tree-cpu';
import { startService } from './processes';
import { scenarios, type Scenario } from './scenarios';

const PORT = 3798;
const PROCESSES = (process.env.BENCH_CAPACITY_PROCESSES ?? '1,2,4').split(',').map(Number);
export const POOLER_SIZE = Number(process.env.BENCH_POOLER_SIZE ?? 10);

export type Route = 'direct' | 'PgBouncer';

export interface CapacityRow {
  route: Route;
  processes: number;
  operation: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  statuses: Record<number, number>;
  /** Transport errors and timeouts (no answer). */
  errors: number;
  /** CPU milliseconds per request; pooler 0 on the direct route. */
  cpuMs: { service: number; postgres: number; pooler: number; loadGenerator: number };
  /** Most client connections of the bench database seen during the run, and most of them active at once. */
  postgresConnections: { open: number; active: number };
  /** The machine's 1-minute load average when the run ended (2 cores, shared with other work). */
  loadAverage: number;
}

interface Setup {
  database: BenchDatabase;
  baseEnv: Record<string, string>;
  seconds: number;
  connections: number;
}

/** The connections of the bench database, sampled on a connection of this process's own (not counted). */
/**
 * The name the measured service's connections carry, one per route (PgBouncer sets it on the server
 * connections it lends, and keeps those open between runs: the direct runs must not count them).
 */
const applicationName = (route: Route) => `capacity-bench-${route === 'direct' ? 'direct' : 'pooled'}`;

const tagged = (url: string, route: Route) => {
  const tag = new URL(url);
  tag.searchParams.set('application_name', applicationName(route));
  return tag.toString();
};

/**
 * The most PostgreSQL connections of the measured service (directly or through PgBouncer) seen while
 * the load runs, sampled every 250 ms on a connection of this process's own.
 */
async function sampleConnections(url: string, route: Route): Promise<{ stop(): Promise<{ open: number; active: number }> }> {
  const client = new Client({ connectionString: url });
  await client.connect();
  const most = { open: 0, active: 0 };
  let sampling = Promise.resolve();
  const timer = setInterval(() => {
    sampling = client
      .query<{ open: number; active: number }>(
        `SELECT count(*)::int AS open, count(*) FILTER (WHERE state <> 'idle')::int AS active FROM pg_stat_activity
          WHERE datname = current_database() AND application_name = $1`,
        [applicationName(route)],
      )
      .then(({ rows: [row] }) => {
        most.open = Math.max(most.open, row!.open);
        most.active = Math.max(most.active, row!.active);
      });
  }, 250);
  return {
    async stop() {
      clearInterval(timer);
      await sampling;
      await client.end();
      return most;
    },
  };
}

/** The postmaster of the bench's PostgreSQL: the parent of a backend of ours (undefined when PostgreSQL runs elsewhere). */
async function postmasterPid(url: string): Promise<number | undefined> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return parentOf((await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid);
  } finally {
    await client.end();
  }
}

interface Run {
  route: Route;
  processes: number;
  origin: string;
  pids: { service?: number; postgres?: number; pooler?: number };
}

async function measureOne(setup: Setup, scenario: Scenario, run: Run): Promise<CapacityRow> {
  const { origin, pids } = run;
  log(`capacity: ${run.route}, ${run.processes} process(es): ${scenario.name} (${setup.connections} connections)`);
  // Each worker compiles its hot code itself: the warm-up grows with the processes that share the load.
  if (WARMUP_SECONDS > 0) await load(scenario, origin, setup.connections, WARMUP_SECONDS * run.processes, new Map());
  const statuses = new Map<number, number>();
  const connections = await sampleConnections(setup.database.url, run.route);
  const cpu = { service: countTreeCpu([pids.service]), postgres: countTreeCpu([pids.postgres]), pooler: countTreeCpu([pids.pooler]) };
  const self = process.cpuUsage();
  const result = await load(scenario, origin, setup.connections, setup.seconds, statuses);
  const spent = { service: cpu.service.spentMs(), postgres: cpu.postgres.spentMs(), pooler: cpu.pooler.spentMs() };
  const generator = process.cpuUsage(self);
  const requests = Math.max(1, result.requests.total);
  return {
    route: run.route,
    processes: run.processes,
    operation: scenario.name,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    statuses: Object.fromEntries([...statuses.entries()].sort(([a], [b]) => a - b)),
    errors: result.errors + result.timeouts,
    cpuMs: {
      service: spent.service / requests,
      postgres: spent.postgres / requests,
      pooler: spent.pooler / requests,
      loadGenerator: (generator.user + generator.system) / 1000 / requests,
    },
    postgresConnections: await connections.stop(),
    loadAverage: os.loadavg()[0]!,
  };
}

async function measureSetting(setup: Setup, route: Route, processes: number, pooled: string, pids: { postgres?: number; pooler?: number }) {
  const origin = `http://127.0.0.1:${PORT}`;
  const service = await startService(
    {
      ...setup.baseEnv,
      WEBHOOK_DELIVERY_CONCURRENCY: '0',
      WEB_CONCURRENCY: String(processes),
      ...(route === 'PgBouncer'
        ? { DATABASE_URL: tagged(pooled, route), DATABASE_DIRECT_URL: tagged(setup.database.url, route) }
        : { DATABASE_URL: tagged(setup.database.url, route) }),
      PORT: String(PORT),
      PUBLIC_ORIGIN: origin,
    },
    `${origin}/rental-guarantee/openapi.json`,
  );
  try {
    const token = await accessToken(origin, setup.database.basic);
    const rows: CapacityRow[] = [];
    for (const scenario of scenarios(scenarioInputs(setup.database, token)).filter((one) => one.name === 'get by id' || one.name === 'create')) {
      const runPids = { service: service.pid, postgres: pids.postgres, pooler: route === 'PgBouncer' ? pids.pooler : undefined };
      rows.push(await measureOne(setup, scenario, { route, processes, origin, pids: runPids }));
    }
    return rows;
  } finally {
    service.kill('SIGTERM');
    await new Promise((resolve) => service.once('exit', resolve));
  }
}

export async function measureCapacity(setup: Setup): Promise<CapacityRow[]> {
  const bouncer = await startPgBouncer(setup.database.url, POOLER_SIZE);
  const pooled = bouncer.url(new URL(setup.database.url).pathname.slice(1));
  const postgres = await postmasterPid(setup.database.url);
  const rows: CapacityRow[] = [];
  try {
    log(`capacity: get and create with ${PROCESSES.join(', ')} processes, direct and through PgBouncer (pool of ${POOLER_SIZE})`);
    for (const [index, processes] of PROCESSES.entries()) {
      // Alternate which route comes first, so neither always runs on a warmer machine.
      const routes: Route[] = index % 2 === 0 ? ['direct', 'PgBouncer'] : ['PgBouncer', 'direct'];
      for (const route of routes) rows.push(...(await measureSetting(setup, route, processes, pooled, { postgres, pooler: bouncer.pid() })));
    }
  } finally {
    await bouncer.stop();
  }
  return rows;
}
