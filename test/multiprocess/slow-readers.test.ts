/**
 * Issue 34 item 4: readers that stop reading cannot pin the service's memory. 40 connections ask
 * for the 4.5 MB reference page uncompressed, 8 times each, and stop reading (issue 34 finding 2:
 * 40 such readers raised RSS from 216 to 390 MB); in a real service process every answer is the
 * page's one shared buffer, so its resident memory grows by less than 60 MB (1.4 GB of answers are
 * pending), a partner is served meanwhile, and each stalled connection is closed by the server once
 * nothing has moved on it for HTTP_SOCKET_IDLE_TIMEOUT_MS.
 */
import fs from 'node:fs';
import net from 'node:net';
import { asPartner } from '../support/partner-api';
import { API_BASE, call, startService, stopAllServices, type ServiceProcess } from '../support/service-process';
import { useTestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

jest.setTimeout(180_000);

const world = useTestApp({}, { agencies: 1 });
world.beforeClose(stopAllServices);
let service: ServiceProcess;
beforeAll(async () => {
  service = await startService(world.databaseUrl, { HTTP_SOCKET_IDLE_TIMEOUT_MS: '3000', ANONYMOUS_RATE_LIMIT_REQUESTS: '1000' });
}, 180_000);

/** The process's resident memory in MB; 0 once it is gone (the test then fails on alive()). */
function residentMb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

const PIPELINED = 8;

/**
 * Asks for the page PIPELINED times on one connection (HTTP/1.1 pipelining: more than the kernel's
 * socket buffers hold, so the server's writes stall) and does not read until `resume` is called.
 * `received` resolves with the bytes read once the connection closes.
 */
function stalledReader(port: number) {
  const socket = net.connect({ port, host: '127.0.0.1' });
  const chunks: Buffer[] = [];
  socket.pause();
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const sent = new Promise<number>((resolve) =>
    socket.once('connect', () => {
      socket.write(`GET ${API_BASE}/docs HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`.repeat(PIPELINED), () => resolve(socket.localPort!));
    }),
  );
  const received = new Promise<number>((resolve) => {
    socket.once('close', () => resolve(Buffer.concat(chunks).length));
    socket.once('error', () => undefined);
  });
  return { sent, received, resume: () => socket.resume() };
}

const ESTABLISHED = '01';

/**
 * The service's ends of the connections from `clientPorts` that are still established (read from
 * /proc/net/tcp: a server that closed its end moves it to FIN_WAIT, even while the client has not
 * read what is in flight).
 */
function establishedServerEnds(servicePort: number, clientPorts: number[]): number[] {
  const hex = (port: number) => port.toString(16).toUpperCase().padStart(4, '0');
  const lines = fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1);
  return clientPorts.filter((clientPort) =>
    lines.some((line) => {
      const [, local, remote, state] = line.trim().split(/\s+/);
      return local?.endsWith(`:${hex(servicePort)}`) && remote?.endsWith(`:${hex(clientPort)}`) && state === ESTABLISHED;
    }),
  );
}

test('When 40 clients ask for the reference page and stop reading, then the process grows by less than 60 MB, partners are served, and the server closes their connections', async () => {
  const { id } = await asPartner(world).newGuarantee();
  // The page is built (and compressed) once, on its first request; a build that outlasts the idle
  // timeout loses its first connection (nothing moves on it), not the build.
  let warm = await call(service.origin, 'GET', '/docs', {});
  for (let attempt = 0; attempt < 10 && warm.status !== 200; attempt += 1) warm = await call(service.origin, 'GET', '/docs', {});
  expect({ status: warm.status, output: warm.status === 200 ? '' : service.output() }).toEqual({ status: 200, output: '' });
  const pageBytes = Buffer.byteLength(warm.text);
  const idle = residentMb(service.pid);
  let peak = idle;
  const sampler = setInterval(() => (peak = Math.max(peak, residentMb(service.pid))), 20);
  let received: number[];
  try {
    const readers = Array.from({ length: 40 }, () => stalledReader(service.port));
    const clientPorts = await Promise.all(readers.map((reader) => reader.sent));
    const answer = await call(service.origin, 'GET', `/v1/rental-insurances/${id}`, world.agency.auth);
    expect(answer.status).toBe(200);
    // Once nothing has moved on them for HTTP_SOCKET_IDLE_TIMEOUT_MS, the server closes its ends.
    const open = await waitFor(
      () => establishedServerEnds(service.port, clientPorts),
      (ports) => ports.length === 0,
      { withinMs: 90_000, everyMs: 250 },
    );
    expect(open).toEqual([]);
    // Reading now gets what the kernel's buffers held, then the end of the connection.
    for (const reader of readers) reader.resume();
    received = await Promise.all(readers.map((reader) => reader.received));
  } finally {
    clearInterval(sampler);
  }
  expect({ alive: service.alive(), output: service.alive() ? '' : service.output() }).toEqual({ alive: true, output: '' });
  expect(peak - idle).toBeLessThan(60);
  expect(received.filter((bytes) => bytes >= PIPELINED * pageBytes)).toEqual([]);
  expect((await call(service.origin, 'GET', `/v1/rental-insurances/${id}`, world.agency.auth)).status).toBe(200);
});
