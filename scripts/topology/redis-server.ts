/**
 * A real Redis (Debian's package; scripts/topology/install-packages.sh installs it) of a test's or
 * the benchmark's own, without persistence, that can be stopped and started again on the same port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { freePort } from './free-port';

export const REDIS_SERVER = '/usr/bin/redis-server';

export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

export async function startRedis(port?: number): Promise<RedisServer> {
  if (!fs.existsSync(REDIS_SERVER)) throw new Error(`${REDIS_SERVER} is missing: apt-get install -y redis-server (.ci/run does it)`);
  const listenPort = port ?? (await freePort());
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(REDIS_SERVER, ['--port', String(listenPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    for (let waited = 0; !(await listening(listenPort)); waited += 50) {
      if (child.exitCode !== null || waited > 10_000) throw new Error('redis-server did not start');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const stop = async () => {
    const running = child;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGKILL');
    });
  };
  await start();
  return { url: `redis://127.0.0.1:${listenPort}`, port: listenPort, stop, start };
}
