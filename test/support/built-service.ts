/**
 * The service as `npm start` starts it in production: the compiled dist/src/main.js under the start
 * script's own Node options and allocator settings (read from package.json, so that a change there
 * is a change here: the 96 MB heap above all). dist/ is built first when any source is newer than
 * it (`make build`'s command; CI has built it already). Its heap is read from its own /metrics
 * (prom-client's nodejs_heap_* gauges, V8's figures) on a metrics port of its own.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from './service-process';
import { scrapeMetrics } from './metrics-scrape';

const PROJECT_ROOT = path.join(__dirname, '..', '..');
const MAIN = path.join(PROJECT_ROOT, 'dist', 'src', 'main.js');

export interface BuiltService {
  origin: string;
  pid: number;
  /** The start script's command as run (package.json `start`). */
  command: string;
  alive(): boolean;
  output(): string;
  /** V8's heap in use and reserved, in bytes, as the process reports it now. */
  heap(): Promise<{ used: number; total: number }>;
  stop(): Promise<void>;
}

/** Newest modification time under `dir` (files only), in ms. */
function newest(dir: string): number {
  let latest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(full) : fs.statSync(full).mtimeMs);
  }
  return latest;
}

/** Builds dist/ as `make build` does when a source, the build configuration or the lockfile is newer than it. */
export function ensureBuilt(): void {
  const sources = Math.max(
    newest(path.join(PROJECT_ROOT, 'src')),
    ...['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'].map((file) => fs.statSync(path.join(PROJECT_ROOT, file)).mtimeMs),
  );
  if (fs.existsSync(MAIN) && fs.statSync(MAIN).mtimeMs >= sources) return;
  execFileSync(process.execPath, [path.join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
    cwd: PROJECT_ROOT,
    stdio: 'inherit',
  });
  // tsc leaves an unchanged output file as it was: mark the build as current.
  const now = new Date();
  fs.utimesSync(MAIN, now, now);
}

export async function startBuiltService(env: Record<string, string>, timeoutMs = 120_000): Promise<BuiltService> {
  ensureBuilt();
  const [port, metricsPort] = [await freePort(), await freePort()];
  const start = (JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const child: ChildProcess = spawn('sh', ['-c', start], {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: 'error',
      SCHEDULER_INTERVAL_MS: '0',
      WEBHOOK_DELIVERY_CONCURRENCY: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-20_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let exited = false;
  const gone = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const origin = `http://127.0.0.1:${port}`;
  const service: BuiltService = {
    origin,
    // The start script ends in `exec node`: the shell's pid is the service's own.
    pid: child.pid!,
    command: start,
    alive: () => !exited,
    output: () => output,
    async heap() {
      const scrape = await scrapeMetrics(metricsPort);
      return { used: scrape.value('nodejs_heap_size_used_bytes') ?? NaN, total: scrape.value('nodejs_heap_size_total_bytes') ?? NaN };
    },
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      await Promise.race([gone, new Promise((resolve) => setTimeout(resolve, 15_000))]);
      if (!exited) child.kill('SIGKILL');
      await gone;
    },
  };
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 250))) {
    if (exited) throw new Error(`the built service exited before it was ready:\n${output}`);
    const ready = await fetch(`${origin}/health/ready`, { signal: AbortSignal.timeout(2_000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return service;
  }
  await service.stop();
  throw new Error(`the built service was not ready within ${timeoutMs} ms:\n${output}`);
}
