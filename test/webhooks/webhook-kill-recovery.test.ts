/**
 * A process killed in the middle of an attempt (SIGKILL: nothing runs after it) loses nothing: two
 * real service processes, started at once on one database, deliver; the receiver holds the first
 * attempt open; the process making it is found (the attempt's TCP connection) and killed; the
 * attempt runs again on the other process, found by its lost heartbeat (docs/webhooks.md: within
 * about WEBHOOK_HEARTBEAT_SECONDS + WEBHOOK_SUPERVISE_SECONDS + 5 s), with the same `webhook-id`:
 * long before the job's own expiry (5 minutes) could have brought it back, the only other way. How
 * soon is not asserted (a loaded machine). Each
 * request the receiver got is one recorded attempt (issue 24 item 2: recorded before it is sent): the
 * killed one reads as interrupted, in the database and in the partner's listing, the second as answered.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { startService, stopAllServices, type ServiceProcess } from '../support/service-process';
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { webhookClient } from './webhook-support';
import { INTERRUPTED_ERROR, IN_PROGRESS_ERROR } from '../../src/webhooks/attempt-outcome';
import { eventually, waitFor as waitForRecord } from '../support/wait-for';

jest.setTimeout(240_000);

const HEARTBEAT_SECONDS = 10;
const SUPERVISE_SECONDS = 1;
/** Far past the heartbeat's recovery, far short of the job's expiry (300 s): only the heartbeat brings the attempt back by then. */
const RECOVERED_WITHIN_MS = 100_000;

const world = useTestApp({ SCHEDULER_INTERVAL_MS: '0' }, { agencies: 1 });
world.beforeClose(stopAllServices);
const partner = asPartner(world);
const hooks = webhookClient(world, () => world.agency);

interface Arrival {
  at: number;
  webhookId: string;
  /** The service process that sent it (found while its connection is open). */
  sender: ServiceProcess | undefined;
}

/** A receiver that never answers its first request and answers 200 to every later one. */
async function holdingReceiver(senders: () => ServiceProcess[]) {
  const arrivals: Arrival[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrivals.push({ at: Date.now(), webhookId: String(req.headers['webhook-id']), sender: processOfPeer(req.socket, senders()) });
      if (arrivals.length > 1) res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const waitFor = (count: number, withinMs: number) => eventually(() => arrivals.length >= count, { withinMs });
  const close = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { url: `http://127.0.0.1:${port}/hooks`, arrivals, waitFor, close };
}

/** The process whose socket is the other end of `socket` (Linux: /proc/net/tcp and /proc/<pid>/fd). */
function processOfPeer(socket: Socket, candidates: ServiceProcess[]): ServiceProcess | undefined {
  const port = socket.remotePort!.toString(16).toUpperCase().padStart(4, '0');
  const inode = readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .find((fields) => fields[1]?.endsWith(`:${port}`))?.[9];
  if (!inode) return undefined;
  return candidates.find(
    (service) =>
      service.alive() &&
      readdirSync(`/proc/${service.pid}/fd`).some((fd) => {
        try {
          return readlinkSync(`/proc/${service.pid}/fd/${fd}`) === `socket:[${inode}]`;
        } catch {
          return false;
        }
      }),
  );
}

it('runs again on the other process, within the documented bound, an attempt whose process was killed in the middle of it', async () => {
  let services: ServiceProcess[] = [];
  const receiver = await holdingReceiver(() => services);
  world.beforeClose(() => receiver.close());
  const endpoint = await hooks.register(receiver.url, ['rental_insurance.status_changed']);
  const settings = {
    WEBHOOK_DELIVERY_CONCURRENCY: '2',
    WEBHOOK_HEARTBEAT_SECONDS: String(HEARTBEAT_SECONDS),
    WEBHOOK_SUPERVISE_SECONDS: String(SUPERVISE_SECONDS),
    WEBHOOK_TIMEOUT_MS: '60000',
  };
  // Two processes starting at once on one database (each one's start checks pg-boss's schema and queue).
  services = await Promise.all([startService(world.databaseUrl, settings), startService(world.databaseUrl, settings)]);

  await partner.newGuarantee();
  expect(await receiver.waitFor(1, 20_000)).toBe(true);
  const held = receiver.arrivals[0]!;
  const attempting = held.sender;
  expect(attempting).toBeDefined();
  const survivor = services.find((service) => service !== attempting)!;
  // Held for a while: a live process keeps its claim by heartbeat, and nobody else attempts meanwhile.
  await new Promise((resolve) => setTimeout(resolve, (HEARTBEAT_SECONDS + 2) * 1000));
  expect(receiver.arrivals).toHaveLength(1);
  // The attempt in flight is already in the log, its outcome not known yet.
  const during = await hooks.deliveries(endpoint.id);
  expect(during.status).toBe(200);
  expect(during.body._embedded.webhookDeliveries[0]).toMatchObject({
    status: 'pending',
    attemptCount: 1,
    attempts: [{ responseStatus: null, latencyMs: 0, error: IN_PROGRESS_ERROR }],
  });

  await attempting!.kill('SIGKILL');
  expect(await receiver.waitFor(2, RECOVERED_WITHIN_MS)).toBe(true);
  const again = receiver.arrivals[1]!;
  expect(again.webhookId).toBe(held.webhookId);
  expect(again.sender).toBe(survivor);

  expect(await world.db.webhookDelivery.count()).toBe(1);
  // The answered attempt is being recorded: wait for it.
  await waitForRecord(
    () => world.db.webhookAttempt.count({ where: { state: 'completed' } }),
    (completed) => completed > 0,
    { everyMs: 100 },
  );
  const recorded = await world.db.webhookAttempt.findMany({ orderBy: { id: 'asc' } });
  // One recorded attempt per request received: the killed one (interrupted) and the answered one.
  expect(recorded).toHaveLength(receiver.arrivals.length);
  expect(recorded.map(({ state, responseStatus, latencyMs, error }) => ({ state, responseStatus, latencyMs, error }))).toEqual([
    { state: 'interrupted', responseStatus: null, latencyMs: 0, error: INTERRUPTED_ERROR },
    { state: 'completed', responseStatus: 200, latencyMs: expect.any(Number), error: null },
  ]);
  expect((await world.db.webhookDelivery.findFirstOrThrow()).status).toBe('succeeded');
  const after = await hooks.deliveries(endpoint.id);
  expect(after.body._embedded.webhookDeliveries[0]).toMatchObject({
    status: 'succeeded',
    attemptCount: 2,
    attempts: [
      { responseStatus: null, latencyMs: 0, error: INTERRUPTED_ERROR },
      { responseStatus: 200, error: null },
    ],
  });
  expect(survivor.alive()).toBe(true);
});
