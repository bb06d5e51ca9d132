/**
 * The child processes of the Prism journey besides the service (Prism): each in its own process group, so
 * that stopping one also stops the npx/tsx wrappers and the node process under them.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const STARTUP_TIMEOUT_MS = 90_000;
const children = [];

/** Spawns a child in its own process group, collects its output, resolves when `ready` matches it. */
export function start(name, command, commandArgs, env, ready) {
  const child = spawn(command, commandArgs, { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push({ name, child });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within ${STARTUP_TIMEOUT_MS / 1000} s:\n${output}`)), STARTUP_TIMEOUT_MS);
    const onData = (chunk) => {
      output += chunk;
      const match = ready(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, match, output: () => output });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code ?? signal}) before it was ready:\n${output}`));
    });
  });
}

/** Stops every child started here, newest first: SIGTERM, then SIGKILL after 10 s. */
export async function stopAll() {
  for (const { child } of children.reverse()) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      process.kill(-child.pid, 'SIGTERM'); // its process group: npx/tsx wrappers and their node
    } catch {
      /* already gone */
    }
    const timeout = new Promise((resolve) => setTimeout(() => resolve('timeout'), 10_000));
    if ((await Promise.race([exited, timeout])) === 'timeout') {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  }
}
