/**
 * One service per dataset, started as `npm start` starts it (bench/processes.ts) with the settings
 * `make bench` gives its own (bench/run.ts), and the targets the bench measures: an agency, the
 * service in front of its dataset, that service's process and its PostgreSQL server's postmaster
 * (whose whole process tree is the PostgreSQL CPU counted), and the agency's operations.
 */
import type { ChildProcess } from 'node:child_process';
import { Client } from 'pg';
import { startService } from '../processes';
import { parentOf } from '../process-tree-cpu';
import { accessToken } from '../setup';
import { operations, type OperationName } from './operations';
import type { Scenario } from '../scenarios';
import type { Agency, Dataset } from './targets';

export const GROWTH_SERVICE_PORT = Number(process.env.BENCH_GROWTH_PORT ?? 3800);

export interface Target {
  dataset: Dataset['name'];
  agency: Agency;
  origin: string;
  servicePid: number | undefined;
  postgresPid: number | undefined;
  operations: Record<OperationName, Scenario>;
}

/** As bench/run.ts's service: production, quotas that never refuse the load, no scheduler, no delivery worker. */
function serviceEnv(url: string, port: number): Record<string, string> {
  return {
    DATABASE_URL: url,
    LOG_LEVEL: 'warn',
    DATABASE_POOL_MAX: process.env.BENCH_POOL_MAX ?? '20',
    ENVIRONMENT: 'production',
    PORT: String(port),
    PUBLIC_ORIGIN: `http://127.0.0.1:${port}`,
    RATE_LIMIT_REQUESTS: '10000000',
    // The agency's quota too (all its credentials together; 3,600 a minute by default): the bench
    // measures operations, not their 429.
    RATE_LIMIT_AGENCY_REQUESTS: '10000000',
    COMMENT_QUOTA_PER_DAY: '10000000',
    IDEMPOTENCY_RECORDS_PER_AGENCY: '100000000',
    SCHEDULER_INTERVAL_MS: '0',
    WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
    WEBHOOK_DELIVERY_CONCURRENCY: '0',
  };
}

export async function startTargets(datasets: Dataset[]): Promise<{ targets: Target[]; stop(): void }> {
  const children: ChildProcess[] = [];
  const targets: Target[] = [];
  try {
    for (const [index, dataset] of datasets.entries()) {
      const port = GROWTH_SERVICE_PORT + index;
      const origin = `http://127.0.0.1:${port}`;
      const service = await startService(serviceEnv(dataset.url, port), `${origin}/rental-guarantee/openapi.json`);
      children.push(service);
      const postgresPid = await postmasterPid(dataset.url);
      for (const agency of dataset.agencies) {
        const token = await accessToken(origin, agency.basic);
        targets.push({
          dataset: dataset.name,
          agency,
          origin,
          servicePid: service.pid,
          postgresPid,
          operations: operations({
            auth: `Bearer ${token}`,
            sampleId: agency.sample.id,
            sampleCpf: agency.sample.cpf,
            monthStart: agency.month.start,
            monthEnd: agency.month.end,
          }),
        });
      }
    }
  } catch (error) {
    for (const child of children) child.kill('SIGTERM');
    throw error;
  }
  return { targets, stop: () => children.forEach((child) => child.kill('SIGTERM')) };
}

/** The postmaster of the server behind `url`: the parent of a backend of ours (undefined when PostgreSQL runs elsewhere). */
async function postmasterPid(url: string): Promise<number | undefined> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return parentOf((await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid);
  } finally {
    await client.end();
  }
}
