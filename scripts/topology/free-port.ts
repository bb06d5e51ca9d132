/**
 * A TCP port that nothing listens on right now (the topology pieces' and the tests' own ports).
 *
 * Not a port the kernel picks (`listen(0)`): the kernel draws those, and every outgoing
 * connection's, from one ephemeral range shared by every process, so a port probed free and
 * released could be handed to another test file's probe before the first server binds it. Two
 * service processes (or two PostgreSQL servers) were then given one port: one of them failed to
 * bind, and its test, finding the other file's process answering on that port, talked to the other
 * file's database (a token `401 invalid_client`, a table that "does not exist"; seen in CI).
 *
 * So each Jest worker draws from a block of its own (JEST_WORKER_ID), below the ephemeral range
 * (32768-60999 on Linux by default), and this process never hands out a port twice within a
 * minute: two test files running at once never share a port, and a port is probed before it is
 * handed out. Outside Jest (the topology and bench scripts) the draw is over the whole span.
 */
import net from 'node:net';

const FIRST_PORT = 20_000;
const BLOCK_SIZE = 1_500;
const BLOCKS = 8;
const REUSE_AFTER_MS = 60_000;
const handedOut = new Map<number, number>();

export async function freePort(): Promise<number> {
  const worker = Number(process.env.JEST_WORKER_ID);
  const [from, size] =
    Number.isInteger(worker) && worker > 0 ? [FIRST_PORT + ((worker - 1) % BLOCKS) * BLOCK_SIZE, BLOCK_SIZE] : [FIRST_PORT, BLOCKS * BLOCK_SIZE];
  const now = Date.now();
  for (const [port, at] of handedOut) if (now - at > REUSE_AFTER_MS) handedOut.delete(port);
  for (let tries = 0; tries < 200; tries++) {
    const port = from + Math.floor(Math.random() * size);
    if (handedOut.has(port) || !(await listensFree(port))) continue;
    handedOut.set(port, now);
    return port;
  }
  throw new Error(`no free port in ${from}-${from + size - 1}`);
}

/** Whether a server could listen on `port` of the loopback address now (probed, then released). */
function listensFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}
