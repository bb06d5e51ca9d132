/**
 * `npm run bench` (make bench): seeds a company with BENCH_ROWS guarantees and statement entries
 * (default 1,000,000), starts the built service and a bare Express reference server as separate
 * processes, measures each operation with autocannon, and writes the table to bench/results.md.
 * Not part of the test run. Environment: BENCH_ROWS, BENCH_SECONDS (8), BENCH_CONNECTIONS (20),
 * BENCH_LATENCY_CONNECTIONS (1), BENCH_ONLY (comma-separated name words), BENCH_SERVICE_NODE_ARGS (e.g. --cpu-prof),
 * DATABASE_URL (otherwise an embedded PostgreSQL in .data/bench-postgres on port 54349).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ensureDatabase } from '../src/database/database-server';
import { startEmbeddedServer } from '../src/database/embedded-server';
import { migrateDatabase } from '../src/database/migrate';
import { createDatabaseClient } from '../src/database/prisma-client';
import { createCredential } from '../src/auth/credentials';
import { SCOPES } from '../src/auth/scopes';
import { todayInSaoPaulo } from '../src/database/column-values';
import { PROJECT_ROOT } from '../src/project-root';
import { BENCH_COMPANY, seed } from './seed';
import { scenarios, type Scenario } from './scenarios';
import { formatResults, type Measurement } from './report';
import { countCpu } from './cpu-usage';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon');

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const LATENCY_CONNECTIONS = Number(process.env.BENCH_LATENCY_CONNECTIONS ?? 1);
const SERVICE_PORT = 3790;
const REFERENCE_PORT = 3791;
const log = (line: string) => console.log(`[bench] ${line}`);

async function main(): Promise<void> {
  const { url, stop } = await database();
  log(`migrating ${redact(url)}`);
  await migrateDatabase(url);
  await seed(url, ROWS, log);

  const db = createDatabaseClient(url, 2);
  // The service runs as production (no sandbox reviewer touching the data), so the credential must be one too.
  const credential = await createCredential(db, 'production', {
    companyId: BENCH_COMPANY,
    displayName: 'Bench ERP',
    scopes: [...SCOPES],
    createdBy: 'bench',
  });
  // Found by its CPF, which no scenario changes (the patch scenario rewrites external ids).
  const sample = await db.rentalInsurance.findFirstOrThrow({ where: { companyId: BENCH_COMPANY, tenantCpfCnpj: String(Math.floor(ROWS / 2)).padStart(11, '0') } });
  await db.$disconnect();

  const service = await startService(
    { DATABASE_URL: url, PORT: String(SERVICE_PORT), LOG_LEVEL: 'warn', DATABASE_POOL_MAX: process.env.BENCH_POOL_MAX ?? '20', ENVIRONMENT: 'production', SCHEDULER_INTERVAL_MS: '0' },
    `http://127.0.0.1:${SERVICE_PORT}/rental-guarantee/openapi.json`,
  );
  const reference = await startProcess('reference', 'dist/bench/reference-server.js', [String(REFERENCE_PORT)], {}, `http://127.0.0.1:${REFERENCE_PORT}/hello`);
  const memory = sampleMemory(service.pid!);
  try {
    const origin = `http://127.0.0.1:${SERVICE_PORT}`;
    const basic = `Basic ${Buffer.from(`${credential.clientId}:${credential.clientSecret}`).toString('base64')}`;
    const tokenResponse = await fetch(`${origin}/auth/oauth2/token`, {
      method: 'POST',
      headers: { Authorization: basic, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    const token = ((await tokenResponse.json()) as { access_token: string }).access_token;
    const today = todayInSaoPaulo();
    const monthAgo = new Date(Date.parse(`${today}T00:00:00Z`) - 30 * 86_400_000).toISOString().slice(0, 10);

    const measurements: Measurement[] = [];
    const ceiling = await measure({ name: 'reference: bare Express JSON endpoint', method: 'GET', path: '/hello' }, `http://127.0.0.1:${REFERENCE_PORT}`, CONNECTIONS, reference.pid);
    measurements.push(ceiling);
    // BENCH_ONLY=get,list measures only the scenarios whose name contains one of the words.
    const only = (process.env.BENCH_ONLY ?? '').split(',').map((word) => word.trim()).filter(Boolean);
    for (const scenario of scenarios({
      api: '/rental-guarantee',
      auth: `Bearer ${token}`,
      token,
      basic,
      sampleId: Number(sample.id),
      sampleCpf: sample.tenantCpfCnpj,
      totalRows: ROWS,
      today,
      monthAgo,
    })) {
      if (only.length > 0 && !only.some((word) => scenario.name.includes(word))) continue;
      memory.reset();
      measurements.push({ ...(await measure(scenario, origin, CONNECTIONS, service.pid)), peakRssMb: memory.peakMb() });
      // A latency target is about the query, not about queueing behind 19 other callers: such an
      // operation is measured again with LATENCY_CONNECTIONS concurrent callers.
      if (scenario.latencyTarget) {
        memory.reset();
        const alone = await measure(scenario, origin, LATENCY_CONNECTIONS, service.pid);
        measurements.push({ ...alone, target: scenario.latencyTarget, peakRssMb: memory.peakMb() });
      }
    }
    const report = formatResults(measurements, ceiling.requestsPerSecond, {
      rows: ROWS,
      seconds: SECONDS,
      connections: CONNECTIONS,
      maxRssMb: memory.maxRssMb(),
    });
    console.log(report);
    if (only.length === 0) {
      fs.writeFileSync(path.join(PROJECT_ROOT, 'bench', 'results.md'), report);
      log('wrote bench/results.md');
    }
  } finally {
    memory.stop();
    service.kill('SIGTERM');
    reference.kill('SIGTERM');
    await stop();
  }
}

async function measure(scenario: Scenario, origin: string, connections: number, serverPid: number | undefined): Promise<Measurement> {
  log(`measuring: ${scenario.name} (${connections} connections)`);
  const statuses = new Map<number, number>();
  const cpu = countCpu(serverPid);
  const result = await autocannon({
    url: origin,
    connections,
    duration: SECONDS,
    requests: [
      {
        method: scenario.method,
        path: scenario.path,
        headers: scenario.headers,
        body: scenario.body,
        // autocannon calls setupRequest whenever the key is present, so it is only set when defined.
        ...(scenario.setupRequest ? { setupRequest: scenario.setupRequest } : {}),
        onResponse: (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1),
      },
    ],
  });
  return {
    name: scenario.name,
    target: scenario.target,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    statuses: Object.fromEntries([...statuses.entries()].sort(([a], [b]) => a - b)),
    errors: result.errors + result.timeouts,
    connections,
    peakRssMb: 0,
    cpu: cpu.perRequest(result.requests.total),
  };
}

async function database(): Promise<{ url: string; stop: () => Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => undefined };
  const server = await startEmbeddedServer({ dataDir: path.join(PROJECT_ROOT, '.data', 'bench-postgres'), port: 54349 });
  await ensureDatabase(server.adminUrl, 'rg_bench');
  return { url: server.urlFor('rg_bench'), stop: server.stop };
}

/**
 * The service starts exactly as `npm start` starts it (its Node and allocator settings included):
 * the script ends in `exec node`, so the pid measured is the service's own.
 * BENCH_SERVICE_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles it under load.
 */
function startService(env: Record<string, string>, readyUrl: string): Promise<ChildProcess> {
  const packageJson = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const extra = process.env.BENCH_SERVICE_NODE_ARGS ?? '';
  const command = packageJson.scripts.start.replace('exec node ', `exec node ${extra} `);
  return waitUntilReady('service', spawn('sh', ['-c', command], { cwd: PROJECT_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] }), readyUrl);
}

/** Starts a node script and resolves once `readyUrl` answers 200. */
function startProcess(name: string, script: string, args: string[], env: Record<string, string>, readyUrl: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, script), ...args], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return waitUntilReady(name, child, readyUrl);
}

async function waitUntilReady(name: string, child: ChildProcess, readyUrl: string): Promise<ChildProcess> {
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  for (const started = Date.now(); Date.now() - started < 60_000; await new Promise((resolve) => setTimeout(resolve, 250))) {
    if (exited !== undefined) throw new Error(`${name} exited with ${exited}`);
    const ok = await fetch(readyUrl).then((response) => response.ok, () => false);
    if (ok) return child;
  }
  child.kill('SIGTERM');
  throw new Error(`${name} did not start in time`);
}

/** Resident memory of the service process, sampled from /proc while the load runs. */
function sampleMemory(pid: number): { maxRssMb(): number; peakMb(): number; reset(): void; stop(): void } {
  let max = 0;
  let peak = 0;
  const timer = setInterval(() => {
    try {
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      max = Math.max(max, kb / 1024);
      peak = Math.max(peak, kb / 1024);
    } catch {
      /* process gone */
    }
  }, 250);
  return {
    maxRssMb: () => Math.round(max),
    peakMb: () => Math.round(peak),
    reset: () => (peak = 0),
    stop: () => clearInterval(timer),
  };
}

function redact(url: string): string {
  return url.replace(/:\/\/([^:]+):[^@]+@/, '://$1:***@');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
