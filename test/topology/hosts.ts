/**
 * The service "hosts" of the topology test and their load balancer: each host is the built service
 * (`node dist/src/main.js`, as `npm start`) run as a cluster of WEB_CONCURRENCY workers on a port of
 * its own, in a process group of its own so that `crash()` kills the primary and its workers at
 * once (kill -9), as a host that dies would. HAProxy (Debian's package) balances over the hosts,
 * probing `/health/ready`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { restartableChild } from '../../scripts/topology/restartable-child';
import { freePort } from '../support/service-process';

const PROJECT_ROOT = path.join(__dirname, '..', '..');
export const HAPROXY = '/usr/sbin/haproxy';

export interface Host {
  name: string;
  port: number;
  origin: string;
  /** The last lines the host wrote. */
  output(): string;
  start(): Promise<void>;
  /** kill -9 of the whole host (its primary and workers). */
  crash(): Promise<void>;
  /** SIGTERM: the graceful stop. */
  stop(): Promise<void>;
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(2_000) })).status === 200;
  } catch {
    return false;
  }
}

/** `root`: the checkout whose build runs (another release's, for the rolling deploy test). */
export async function createHost(name: string, env: Record<string, string>, root = PROJECT_ROOT): Promise<Host> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  let output = '';
  const exited = () => !child || child.exitCode !== null || child.signalCode !== null;
  const host: Host = {
    name,
    port,
    origin,
    output: () => output,
    async start() {
      child = spawn(process.execPath, ['dist/src/main.js'], {
        cwd: root,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), METRICS_PORT: '0', ...env },
      });
      const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-50_000));
      child.stdout!.on('data', keep);
      child.stderr!.on('data', keep);
      for (let waited = 0; !(await answers(`${origin}/health/ready`)); waited += 200) {
        if (exited()) throw new Error(`host ${name} exited:\n${output.slice(-3000)}`);
        if (waited > 90_000) throw new Error(`host ${name} not ready within 90 s:\n${output.slice(-3000)}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
    async crash() {
      if (exited()) return;
      const running = child!;
      const gone = new Promise((resolve) => running.once('exit', resolve));
      process.kill(-running.pid!, 'SIGKILL');
      await gone;
      // The workers of the group die with it; wait until the port is free for the restart.
      for (let waited = 0; waited < 10_000 && (await answers(`${origin}/health/live`)); waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async stop() {
      if (exited()) return;
      const running = child!;
      const gone = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGTERM');
      await gone;
    },
  };
  return host;
}

export interface Balancer {
  origin: string;
  stop(): Promise<void>;
}

export async function startHaproxy(hosts: Host[]): Promise<Balancer> {
  if (!fs.existsSync(HAPROXY)) throw new Error(`${HAPROXY} is missing: apt-get install -y haproxy (.ci/run does it)`);
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-haproxy-'));
  const configFile = path.join(dir, 'haproxy.cfg');
  fs.writeFileSync(
    configFile,
    [
      'global',
      '  maxconn 2000',
      'defaults',
      '  mode http',
      '  timeout connect 1s',
      '  timeout client 30s',
      '  timeout server 30s',
      // A refused connection (a dead host) is tried again on the other host.
      '  retries 2',
      '  option redispatch',
      'frontend api',
      `  bind 127.0.0.1:${port}`,
      '  default_backend hosts',
      'backend hosts',
      '  balance roundrobin',
      '  option httpchk GET /health/ready',
      '  http-check expect status 200',
      '  default-server inter 300ms fall 2 rise 2',
      ...hosts.map((host) => `  server ${host.name} 127.0.0.1:${host.port} check`),
      '',
    ].join('\n'),
  );
  let output = '';
  const balancer = restartableChild(
    'haproxy',
    () => {
      const child = spawn(HAPROXY, ['-f', configFile, '-db'], { stdio: ['ignore', 'ignore', 'pipe'] });
      child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
      return child;
    },
    port,
    'SIGTERM',
    () => output,
  );
  await balancer.start();
  return {
    origin: `http://127.0.0.1:${port}`,
    async stop() {
      await balancer.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
