/**
 * Real service processes (src/main.ts run by tsx in ONE node process, so that a kill reaches the
 * server itself) on a given database, for the multi-process suites; or, with `{ built: true }`, the
 * built service started exactly as `npm start` starts it (its Node options and allocator settings:
 * the heap limit above all), built first when dist/ is older than src/ (`ensureBuilt`). Every
 * process started here is remembered and killed by `stopAllServices()` (call it in afterAll) and,
 * as a last resort, when the test worker exits.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { freePort } from '../../scripts/topology/free-port';

const PROJECT_ROOT = path.join(__dirname, '..', '..');
export const API_BASE = '/rental-guarantee';

export interface ServiceProcess {
  pid: number;
  port: number;
  origin: string;
  /** The last lines the process wrote (stdout and stderr), for failure messages. */
  output(): string;
  alive(): boolean;
  exited: Promise<number | null>;
  /** Kills the process with the signal and waits for it to end. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

const running = new Set<ChildProcess>();

process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export { freePort };

export async function startService(
  databaseUrl: string,
  env: Record<string, string> = {},
  timeoutMs = 90_000,
  options: { built?: boolean } = {},
): Promise<ServiceProcess> {
  const port = await freePort();
  if (options.built) ensureBuilt();
  // `npm start`'s own command (it ends in `exec node`, so the pid is the service's), with this Node first on PATH.
  const [command, args] = options.built ? ['sh', ['-c', npmStartCommand()]] : [process.execPath, ['--import', 'tsx', 'src/main.ts']];
  const child = spawn(command, args, {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
      // No time-driven or sandbox-reviewer jobs: the tests decide every transition themselves.
      SCHEDULER_INTERVAL_MS: '0',
      // No metrics listener: several processes run at once on this host (a suite that reads metrics picks a free port).
      METRICS_PORT: '0',
      // No webhook delivery worker unless the test asks for one, as in in-process-app.ts.
      WEBHOOK_DELIVERY_CONCURRENCY: '0',
      // Receivers of the tests listen on 127.0.0.1, as in in-process-app.ts.
      ...(env['ENVIRONMENT'] === 'production' ? {} : { WEBHOOK_ALLOW_LOOPBACK: 'true' }),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      exitCode = code;
      running.delete(child);
      resolve(code);
    }),
  );
  const origin = `http://127.0.0.1:${port}`;
  const service: ServiceProcess = {
    pid: child.pid!,
    port,
    origin,
    output: () => output,
    alive: () => exitCode === undefined,
    exited,
    async kill(signal = 'SIGTERM') {
      if (exitCode !== undefined) return;
      child.kill(signal);
      await exited;
    },
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exitCode !== undefined) throw new Error(`service exited with ${exitCode} before answering:\n${output}`);
    try {
      const response = await fetch(`${origin}${API_BASE}/openapi.json`, { signal: AbortSignal.timeout(2000) });
      if (response.status === 200) return service;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await service.kill('SIGKILL');
  throw new Error(`service did not answer within ${timeoutMs} ms:\n${output}`);
}

function npmStartCommand(): string {
  const packageJson = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
  return packageJson.scripts.start;
}

/** Builds dist/ (`tsc -p tsconfig.build.json`, as `make build`) when a source file is newer than its entry point or it is missing. */
export function ensureBuilt(): void {
  const entry = path.join(PROJECT_ROOT, 'dist', 'src', 'main.js');
  const builtAt = fs.existsSync(entry) ? fs.statSync(entry).mtimeMs : 0;
  const newest = (dir: string): number =>
    fs.readdirSync(dir, { withFileTypes: true }).reduce((latest, item) => {
      const full = path.join(dir, item.name);
      return Math.max(latest, item.isDirectory() ? newest(full) : item.name.endsWith('.ts') ? fs.statSync(full).mtimeMs : 0);
    }, 0);
  if (builtAt >= newest(path.join(PROJECT_ROOT, 'src'))) return;
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc', { paths: [PROJECT_ROOT] }), '-p', 'tsconfig.build.json'], {
    cwd: PROJECT_ROOT,
    stdio: 'pipe',
    timeout: 300_000,
  });
  // tsc leaves an unchanged output file's time alone: the entry point says when the build was made.
  const now = new Date();
  fs.utimesSync(entry, now, now);
}

export async function stopAllServices(): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}

export interface FetchResult {
  status: number;
  headers: Headers;
  text: string;
  body: Record<string, unknown> | undefined;
  /** Set when no HTTP answer arrived (connection refused or reset). */
  networkError?: string;
}

/** fetch that never throws: a missing answer is reported as status 0 with the error. */
export async function call(
  origin: string,
  method: string,
  pathAndQuery: string,
  headers: Record<string, string> = {},
  body?: unknown,
  timeoutMs = 30_000,
): Promise<FetchResult> {
  try {
    const response = await fetch(`${origin}${API_BASE}${pathAndQuery}`, {
      method,
      headers: body === undefined ? headers : { 'Content-Type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    let parsed: Record<string, unknown> | undefined;
    try {
      parsed = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, text, body: parsed };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return { status: 0, headers: new Headers(), text: '', body: undefined, networkError: cause ?? (error as Error).message };
  }
}

/**
 * Opens a NEW TCP connection (never one of fetch's pooled keep-alive sockets) and sends one GET:
 * the HTTP status, or 0 when the connection is refused. A draining server still answers a request
 * that arrives on a connection it already had (with `Connection: close`); only new ones are refused.
 */
export function statusOnNewConnection(origin: string, pathAndQuery: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const request = http.get(`${origin}${API_BASE}${pathAndQuery}`, { agent: false, headers, timeout: 10_000 }, (response) => {
      response.resume();
      response.once('end', () => resolve(response.statusCode ?? 0));
    });
    request.once('timeout', () => request.destroy(new Error('timeout')));
    request.once('error', () => resolve(0));
  });
}

/** The Authorization header of a token issued by a service process to a credential (client credentials grant). */
export async function bearerFor(origin: string, credential: { clientId: string; clientSecret: string }): Promise<Record<string, string>> {
  const issued = await fetch(`${origin}/auth/oauth2/token`, {
    method: 'POST',
    headers: {
      Authorization: `Basic ${Buffer.from(`${credential.clientId}:${credential.clientSecret}`).toString('base64')}`,
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  if (issued.status !== 200) throw new Error(`token: ${issued.status} ${await issued.text()}`);
  return { Authorization: `Bearer ${((await issued.json()) as { access_token: string }).access_token}` };
}
