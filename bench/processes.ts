/**
 * The processes of a benchmark: its PostgreSQL, the service exactly as `npm start` starts it (from
 * this checkout or another one, for A/B runs), reference servers, and the service's memory.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ensureDatabase } from '../src/database/database-server';
import { startEmbeddedServer } from '../src/database/embedded-server';
import { PROJECT_ROOT } from '../src/project-root';

/**
 * The benchmark's own embedded PostgreSQL port (away from the service's 54329 and the tests' 54339);
 * BENCH_DB_PORT moves it, so that the benchmarks of two checkouts can run side by side.
 */
export const BENCH_DATABASE_PORT = Number(process.env.BENCH_DB_PORT ?? 54369);
if (!Number.isInteger(BENCH_DATABASE_PORT) || BENCH_DATABASE_PORT < 1 || BENCH_DATABASE_PORT > 65535)
  throw new Error(`BENCH_DB_PORT must be a port number (1-65535), not ${process.env.BENCH_DB_PORT}`);

/** `onLog` receives the embedded server's log (the growth bench reads auto_explain's plans there). */
export async function database(onLog?: (text: string) => void): Promise<{ url: string; stop: () => Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => undefined };
  const dataDir = path.join(PROJECT_ROOT, '.data', 'bench-postgres');
  const server = await startEmbeddedServer({ dataDir, port: BENCH_DATABASE_PORT, ...(onLog ? { onLog } : {}) });
  await ensureDatabase(server.adminUrl, 'rg_bench');
  return { url: server.urlFor('rg_bench'), stop: server.stop };
}

/**
 * The service starts exactly as `npm start` starts it (its Node and allocator settings included):
 * the script ends in `exec node`, so the pid measured is the service's own.
 * BENCH_SERVICE_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles it under load. They go
 * after `npm start`'s own Node options, just before the script: V8 takes the last of a repeated
 * flag, so `--max-semi-space-size=8` there replaces the start script's value instead of losing to it.
 */
export function startService(env: Record<string, string>, readyUrl: string, projectRoot = PROJECT_ROOT): Promise<ChildProcess> {
  const extra = process.env.BENCH_SERVICE_NODE_ARGS ?? '';
  // METRICS_PORT 0: any free port, so that a service already running on this host (9464) does not stop the bench.
  return waitUntilReady('service', runLikeNpmStart(projectRoot, `${extra} dist/src/main.js`, [], { METRICS_PORT: '0', ...env }), { url: readyUrl });
}

/**
 * Starts a node script of the bench (the reference server, the stack floors) and resolves once
 * `readyUrl` answers 200. It runs on the service's runtime settings (`npm start`'s Node options and
 * allocator settings: the heap's limits above all), so that a floor differs from the service by its
 * code alone: on Node's defaults the Prisma floor grew to 205-215 MB resident (150 MB with the
 * service's settings) and answered 1.04-1.07 times as fast for that alone (bench/results.md,
 * "Get by id against the floor: the request log's batch and the floor's runtime").
 */
export function startProcess(name: string, script: string, args: string[], env: Record<string, string>, ready: Probe): Promise<ChildProcess> {
  return waitUntilReady(name, runLikeNpmStart(PROJECT_ROOT, script, args, env), ready);
}

/** `npm start`'s command with `script` in place of the service's, run with `args` (passed as they are). */
function runLikeNpmStart(projectRoot: string, script: string, args: string[], env: Record<string, string>): ChildProcess {
  const packageJson = JSON.parse(fs.readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const command = packageJson.scripts.start.replace(' dist/src/main.js', ` ${script}`);
  return spawn('sh', ['-c', `${command} "$@"`, 'sh', ...args], {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** A request that answers 200 once the process is ready. */
export interface Probe {
  url: string;
  headers?: Record<string, string>;
}

async function waitUntilReady(name: string, child: ChildProcess, ready: Probe): Promise<ChildProcess> {
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  for (const started = Date.now(); Date.now() - started < 60_000; await new Promise((resolve) => setTimeout(resolve, 250))) {
    if (exited !== undefined) throw new Error(`${name} exited with ${exited}`);
    const ok = await fetch(ready.url, { headers: ready.headers }).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return child;
  }
  child.kill('SIGTERM');
  throw new Error(`${name} did not start in time`);
}

/** Resident memory of the service process, sampled from /proc every `everyMs` while the load runs. */
export function sampleMemory(pid: number, everyMs = 250): { maxRssMb(): number; peakMb(): number; reset(): void; stop(): void } {
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
  }, everyMs);
  return {
    maxRssMb: () => Math.round(max),
    peakMb: () => Math.round(peak),
    reset: () => (peak = 0),
    stop: () => clearInterval(timer),
  };
}

export function redact(url: string): string {
  return url.replace(/:\/\/([^:]+):[^@]+@/, '://$1:***@');
}

/**
 * A sandbox service that delivers webhooks to loopback receivers (the webhook benches): the
 * scheduler off and the sandbox reviewer far away, so only the bench's own writes make events.
 */
export function startWebhookService(baseEnv: Record<string, string>, port: number): Promise<ChildProcess> {
  const origin = `http://127.0.0.1:${port}`;
  return startService(
    {
      ...baseEnv,
      ENVIRONMENT: 'sandbox',
      WEBHOOK_ALLOW_LOOPBACK: 'true',
      PORT: String(port),
      PUBLIC_ORIGIN: origin,
      SCHEDULER_INTERVAL_MS: '0',
      SANDBOX_REVIEW_DELAY_SECONDS: '86400',
    },
    `${origin}/rental-guarantee/openapi.json`,
  );
}
