/**
 * A server of a test's or the benchmark's own (PgBouncer, Redis) that can be stopped and started
 * again on the same port, as the topology's faults need: `start` spawns it and resolves once its
 * port accepts connections (it fails if the process exits first, saying what `exitReport` returns,
 * or if the port stays closed 10 s); `stop` sends `signal` and resolves once the process has exited.
 */
import type { ChildProcess } from 'node:child_process';
import net from 'node:net';

export interface RestartableChild {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The running process's id, or undefined while stopped. */
  pid(): number | undefined;
}

export function restartableChild(
  name: string,
  spawnChild: () => ChildProcess,
  port: number,
  signal: NodeJS.Signals,
  exitReport: () => string = () => '',
): RestartableChild {
  let child: ChildProcess | undefined;
  const running = () => (child && child.exitCode === null && child.signalCode === null ? child : undefined);
  return {
    async start() {
      const started = spawnChild();
      child = started;
      for (let waited = 0; !(await listening(port)); waited += 50) {
        if (started.exitCode !== null || started.signalCode !== null) throw new Error(`${name} exited: ${exitReport()}`);
        if (waited > 10_000) throw new Error(`${name} did not listen on ${port} within 10 s`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async stop() {
      const current = running();
      if (!current) return;
      await new Promise<void>((resolve) => {
        current.once('exit', () => resolve());
        current.kill(signal);
      });
    },
    pid: () => running()?.pid,
  };
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}
