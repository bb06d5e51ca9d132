/**
 * A real PgBouncer (Debian's package; scripts/topology/install-packages.sh installs it) in
 * transaction mode in front of a PostgreSQL server (the tests' and the benchmark's), as managed PostgreSQL services put one
 * in front of theirs. It logs in to the server as the server's own user (`auth_type = any`), runs
 * as the unprivileged `postgres` user when the tests run as root (PgBouncer refuses root), and can
 * be restarted on the same port. `stop()` (afterAll) ends it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port';
import { restartableChild } from './restartable-child';

export interface PgBouncer {
  port: number;
  /** The running PgBouncer's process id (it does not fork: its CPU time is this process's), or undefined while stopped. */
  pid(): number | undefined;
  /** The URL of `database` through the pooler. */
  url(database: string): string;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export const PGBOUNCER = '/usr/sbin/pgbouncer';

/** `server`: any URL of the PostgreSQL server (its host, port, user and password are used). */
export async function startPgBouncer(server: string, poolSize = 20, port?: number): Promise<PgBouncer> {
  if (!fs.existsSync(PGBOUNCER)) throw new Error(`${PGBOUNCER} is missing: apt-get install -y pgbouncer (.ci/run does it)`);
  const target = new URL(server);
  const listenPort = port ?? (await freePort());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-pgbouncer-'));
  fs.chmodSync(dir, 0o777);
  const configFile = path.join(dir, 'pgbouncer.ini');
  fs.writeFileSync(
    configFile,
    [
      '[databases]',
      `* = host=${target.hostname === 'localhost' ? '127.0.0.1' : target.hostname} port=${target.port} user=${decodeURIComponent(target.username)}${target.password ? ` password=${decodeURIComponent(target.password)}` : ''}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${listenPort}`,
      'unix_socket_dir =',
      'auth_type = any',
      'pool_mode = transaction',
      'max_client_conn = 1000',
      `default_pool_size = ${poolSize}`,
      // pg sends `options` (idle_in_transaction_session_timeout) and extra_float_digits at start-up.
      'ignore_startup_parameters = extra_float_digits,options',
      `logfile = ${path.join(dir, 'pgbouncer.log')}`,
      `pidfile = ${path.join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  fs.chmodSync(configFile, 0o644);
  const asRoot = process.getuid?.() === 0;
  const pooler = restartableChild(
    'pgbouncer',
    () => spawn(PGBOUNCER, [...(asRoot ? ['-u', 'postgres'] : []), configFile], { stdio: 'ignore' }),
    listenPort,
    'SIGTERM', // immediate shutdown: clients lose their connections, as in a crash
    () => fs.readFileSync(path.join(dir, 'pgbouncer.log'), 'utf8').slice(-2000),
  );
  await pooler.start();
  return {
    port: listenPort,
    pid: pooler.pid,
    url: (database) => `postgresql://pooled@127.0.0.1:${listenPort}/${database}`,
    async restart() {
      await pooler.stop();
      await pooler.start();
    },
    async stop() {
      await pooler.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
