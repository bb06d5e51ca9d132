/**
 * A real sandbox service for the integrator-kit checks (reference page, client tests, example,
 * conformance self-test): src/main.ts run by tsx, on a fresh embedded PostgreSQL in a folder of its
 * own under .data/tmp/, with the demo credential, on free ports (never the ports of a developer's
 * `make start` or of the jest suite). The Prism journey (scripts/contract/prism-journey.mjs) runs on it too.
 *
 * Fresh, but not made from nothing each time: initdb and the migrations took more than half of a
 * sandbox's start, and CI starts about twenty. The first start of a run makes a migrated data
 * directory (migrated-data-dir.ts) named after the migrations' contents, and every sandbox starts on
 * a copy of it (`cp -a`, owners kept: PostgreSQL checks them); the service then finds nothing to apply.
 *
 * The demo credential's secret is read from the service's console and never printed: output()
 * and every error message show it as [redacted].
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const STARTUP_TIMEOUT_MS = 120_000;
const running = new Set();

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * @param {{ name: string, env?: Record<string, string>, command?: string[] }} options  env overrides
 *   the defaults, e.g. SCHEDULER_INTERVAL_MS and the SANDBOX_* delays for a journey that needs the
 *   sandbox reviewer; command replaces `tsx src/main.ts` (the Node 22 smoke check runs the build).
 */
export async function startSandboxService({ name, env = {}, command = [path.join(root, 'node_modules/.bin/tsx'), 'src/main.ts'] }) {
  const dir = path.join(root, '.data', 'tmp', `${name}-${process.pid}-${randomBytes(3).toString('hex')}`);
  fs.mkdirSync(dir, { recursive: true });
  if (env.EMBEDDED_DB_DIR === undefined) execFileSync('cp', ['-a', await migratedDataDir(), path.join(dir, 'postgres')]);
  const port = await freePort();
  const childEnv = { ...process.env };
  delete childEnv.DATABASE_URL; // always a fresh embedded database of its own
  Object.assign(childEnv, {
    ENVIRONMENT: 'sandbox',
    HOST: '127.0.0.1',
    PORT: String(port),
    EMBEDDED_DB_DIR: path.join(dir, 'postgres'),
    EMBEDDED_DB_PORT: String(await freePort()),
    DEMO_CREDENTIAL: 'true',
    // A sandbox on the partner's own machine, as make start runs it: local receivers are allowed.
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    LOG_LEVEL: 'warn',
    SCHEDULER_INTERVAL_MS: '0',
    // Any free metrics port: a service already running on this host (make start) holds 9464.
    METRICS_PORT: '0',
    ...env,
  });
  // Its own process group, so that stop() reaches tsx's node child and the postgres it starts.
  const child = spawn(command[0], command.slice(1), {
    cwd: root,
    env: childEnv,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  let secret;
  const redact = (text) => (secret ? text.split(secret).join('[redacted]') : text).replace(/(client_secret:\s+)\S+/g, '$1[redacted]');
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  exited.then(() => running.delete(child));

  const credential = await new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name}: the service did not start within ${STARTUP_TIMEOUT_MS / 1000} s:\n${redact(output)}`)),
      STARTUP_TIMEOUT_MS,
    );
    const onData = (chunk) => {
      output = (output + chunk).slice(-50_000);
      const id = /client_id:\s+(\S+)/.exec(output);
      const found = /client_secret:\s+(\S+)/.exec(output);
      if (found) secret = found[1];
      if (id && found) {
        clearTimeout(timer);
        resolve({ clientId: id[1], clientSecret: found[1] });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name}: the service exited (${code}) before it was ready:\n${redact(output)}`));
    });
  }).catch(async (error) => {
    await stop();
    throw error;
  });

  async function stop() {
    if (child.exitCode === null && child.signalCode === null) {
      signal('SIGTERM');
      // Cleared once the race is over: a pending 15 s timer kept every caller's process (a client
      // test file, the example) alive that long after its service had stopped.
      let timer;
      const timeout = new Promise((resolve) => (timer = setTimeout(() => resolve('timeout'), 15_000)));
      const outcome = await Promise.race([exited, timeout]);
      clearTimeout(timer);
      if (outcome === 'timeout') {
        signal('SIGKILL');
        await exited;
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
  function signal(name) {
    try {
      process.kill(-child.pid, name);
    } catch {
      /* already gone */
    }
  }

  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    baseUrl: `${origin}${childEnv.API_BASE_PATH ?? '/rental-guarantee'}`,
    authUrl: `${origin}${childEnv.AUTH_BASE_PATH ?? '/auth'}`,
    ...credential,
    output: () => redact(output),
    stop,
  };
}

/**
 * The migrated data directory of this tree's migrations, made once and kept under .data/tmp/ (a
 * change to a migration names another). Several checks start at once (`make -j3`): each makes its
 * own under a temporary name and renames it into place; the first rename wins, the others are
 * dropped, so no sandbox ever copies a half-made one.
 */
async function migratedDataDir() {
  const migrations = path.join(root, 'prisma', 'migrations');
  const hash = createHash('sha256');
  for (const entry of fs.readdirSync(migrations, { recursive: true }).map(String).sort()) {
    const file = path.join(migrations, entry);
    if (fs.statSync(file).isFile()) hash.update(entry).update(fs.readFileSync(file));
  }
  const target = path.join(root, '.data', 'tmp', `sandbox-migrated-${hash.digest('hex').slice(0, 16)}`);
  if (fs.existsSync(path.join(target, 'PG_VERSION'))) return target;
  const building = `${target}.building-${process.pid}-${randomBytes(3).toString('hex')}`;
  fs.mkdirSync(path.dirname(building), { recursive: true });
  try {
    execFileSync(path.join(root, 'node_modules/.bin/tsx'), ['scripts/support/migrated-data-dir.ts', building, String(await freePort())], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    fs.renameSync(building, target);
  } catch (error) {
    fs.rmSync(building, { recursive: true, force: true });
    // Another check renamed its own into place first: use that one.
    if (!fs.existsSync(path.join(target, 'PG_VERSION'))) throw error;
  }
  return target;
}

/** Kills every service still running (a crashed check must not leave PostgreSQL behind). */
export function killAllSandboxServices() {
  for (const child of running) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}
process.once('exit', killAllSandboxServices);
