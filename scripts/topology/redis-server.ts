/**
 * A real Redis (Debian's package; scripts/topology/install-packages.sh installs it) of a test's or
 * the benchmark's own, without persistence, that can be stopped and started again on the same port.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { freePort } from './free-port';
import { restartableChild } from './restartable-child';

export const REDIS_SERVER = '/usr/bin/redis-server';

export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startRedis(port?: number): Promise<RedisServer> {
  if (!fs.existsSync(REDIS_SERVER)) throw new Error(`${REDIS_SERVER} is missing: apt-get install -y redis-server (.ci/run does it)`);
  const listenPort = port ?? (await freePort());
  const server = restartableChild(
    'redis-server',
    () => spawn(REDIS_SERVER, ['--port', String(listenPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' }),
    listenPort,
    'SIGKILL',
  );
  await server.start();
  return { url: `redis://127.0.0.1:${listenPort}`, port: listenPort, stop: server.stop, start: server.start };
}
