/**
 * A PostgreSQL server of its own that a test may stop and start again on the same port and data
 * (test/support/embedded-pg-process.ts runs it in a child process), for the database-restart
 * suites. `remove()` (afterAll) stops it and deletes its data.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { Client } from 'pg';
import { freePort } from './service-process';

export interface RestartablePostgres {
  /** The URL of a database of this server. */
  url(database: string): string;
  createDatabase(name: string): Promise<string>;
  /** PostgreSQL fast shutdown (SIGINT to the postmaster, through the helper). */
  stop(): Promise<void>;
  start(): Promise<void>;
  remove(): Promise<void>;
}

export async function startRestartablePostgres(): Promise<RestartablePostgres> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-db-restart-'));
  // PostgreSQL runs as the unprivileged `postgres` user when the tests run as root.
  fs.chmodSync(dataDir, 0o777);
  const port = await freePort();
  let child: ChildProcess | undefined;
  const url = (database: string) => `postgresql://postgres:postgres@127.0.0.1:${port}/${database}`;
  const start = async () => {
    child = spawn(process.execPath, ['--import', 'tsx', 'test/support/embedded-pg-process.ts', path.join(dataDir, 'pg'), String(port)], {
      cwd: path.join(__dirname, '..', '..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const started = child;
    await new Promise<void>((resolve, reject) => {
      started.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('READY')) resolve();
      });
      started.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      started.once('exit', (code) => reject(new Error(`embedded PostgreSQL helper exited with ${code}: ${output}`)));
    });
  };
  const stop = async () => {
    const running = child;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGTERM');
    });
  };
  await start();
  return {
    url,
    async createDatabase(name) {
      const admin = new Client({ connectionString: url('postgres') });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      return url(name);
    },
    stop,
    start,
    async remove() {
      await stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
