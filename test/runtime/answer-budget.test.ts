/**
 * The answers a process makes at once are bounded by their worst case in bytes, from the contract
 * (issue 34): a page of 200 guarantees (about 4.8 MiB at its longest) takes most of an agency's
 * share (ANSWER_BYTES_PER_AGENCY, 6 MiB by default), so the agency's second such page waits its
 * turn, while another agency's requests, and the agency's own small ones, are admitted; a request
 * that waits longer than DATABASE_POOL_WAIT_MS is answered 503 with Retry-After and changes nothing.
 *
 * The first page is kept in flight by a lock the test holds on the guarantees' table (its read
 * waits for it, admitted, on its pooled connection); what is admitted is seen reaching that lock.
 */
import net from 'node:net';
import request from 'supertest';
import { answerBudgetReadings } from '../../src/observability/metrics';
import { expectErrorBody } from '../support/error-body';
import { API, asPartner } from '../support/partner-api';
import { listen, type Listening } from '../support/raw-http';
import type { Transaction } from '../../src/database/prisma-client';
import { waitForLockWaiters } from '../support/row-lock';
import { useTestApp, type Agency } from '../support/test-app';
import { eventually } from '../support/wait-for';

const WAIT_MS = 3000;
const world = useTestApp({ DATABASE_POOL_WAIT_MS: String(WAIT_MS), RATE_LIMIT_REQUESTS: '100000' }, { agencies: 2 });
const LARGEST_PAGE = `${API}/v1/rental-insurances?pageSize=200`;

const budget = () => answerBudgetReadings.state!();
const read = (agency: Agency, path: string) => request(world.app).get(path).set(agency.auth);

/** Holds every read of the guarantees' table until released (the reads wait, admitted, on their connections). */
async function holdGuaranteeReads(): Promise<{ release(): Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const done = world.db.$transaction(
    async (tx: Transaction) => {
      await tx.$executeRaw`LOCK TABLE rental_insurances IN ACCESS EXCLUSIVE MODE`;
      locked();
      await released;
    },
    { timeout: 60_000 },
  );
  await Promise.race([isLocked, done]);
  return {
    async release() {
      release();
      await done;
    },
  };
}

beforeAll(async () => {
  for (const agency of world.agencies) await asPartner(world, agency).newGuarantee();
});

describe("When an agency's page of 200 guarantees is being made and it asks for another", () => {
  it("then the second waits its turn and is answered 503 after the wait, while the other agency's page and the agency's small reads go on", async () => {
    const [a, b] = world.agencies as [Agency, Agency];
    const lock = await holdGuaranteeReads();
    try {
      const first = read(a, LARGEST_PAGE).then((response) => response);
      await waitForLockWaiters(world, 1);
      const second = read(a, LARGEST_PAGE).then((response) => response);
      expect(await eventually(() => budget().waiting === 1)).toBe(true);
      // The other agency's largest page is admitted: it reaches the lock beside the first.
      const other = read(b, LARGEST_PAGE).then((response) => response);
      await waitForLockWaiters(world, 2);
      expect(budget().waiting).toBe(1);
      // The agency's small reads fit what is left of its share.
      const endpoints = await read(a, `${API}/v1/webhook-endpoints`);
      expect(endpoints.status).toBe(200);

      const refused = await second;
      expectErrorBody(refused, 503, 'service_unavailable');
      expect(refused.headers['retry-after']).toBe('1');
      expect(budget().waiting).toBe(0);

      await lock.release();
      const answered = [await first, await other];
      expect(answered.map((response) => response.status)).toEqual([200, 200]);
      expect(answered.map((response) => response.body.page.size)).toEqual([200, 200]);
    } finally {
      await lock.release();
    }
    // Everything given back once written.
    expect(await eventually(() => budget().inFlight === 0)).toBe(true);
    expect((await read(a, LARGEST_PAGE)).status).toBe(200);
  });

  it('then, when the first is written before the wait is over, the second is answered in its turn', async () => {
    const [a] = world.agencies as [Agency];
    const lock = await holdGuaranteeReads();
    try {
      const first = read(a, LARGEST_PAGE).then((response) => response);
      await waitForLockWaiters(world, 1);
      const second = read(a, LARGEST_PAGE).then((response) => response);
      expect(await eventually(() => budget().waiting === 1)).toBe(true);
      await lock.release();
      expect([(await first).status, (await second).status]).toEqual([200, 200]);
    } finally {
      await lock.release();
    }
  });
});

describe('When a client hangs up while its request waits for room', () => {
  let server: Listening;
  beforeAll(async () => {
    server = await listen(world.app);
    world.beforeClose(() => server.close());
  });

  it('then its request leaves the queue and holds nothing', async () => {
    const [a] = world.agencies as [Agency];
    const lock = await holdGuaranteeReads();
    try {
      const first = read(a, LARGEST_PAGE).then((response) => response);
      await waitForLockWaiters(world, 1);
      const socket = net.connect(server.port, '127.0.0.1', () => {
        socket.write(`GET ${LARGEST_PAGE} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${a.auth.Authorization}\r\n\r\n`);
      });
      socket.on('error', () => undefined);
      expect(await eventually(() => budget().waiting === 1)).toBe(true);
      socket.destroy();
      expect(await eventually(() => budget().waiting === 0)).toBe(true);
      await lock.release();
      expect((await first).status).toBe(200);
    } finally {
      await lock.release();
    }
    expect(await eventually(() => budget().inFlight === 0)).toBe(true);
  });
});
