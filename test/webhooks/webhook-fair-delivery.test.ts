/**
 * Fair delivery (issue 23 item 3), through HTTP against real PostgreSQL: agency B's receivers that
 * never answer hold only B's share of a process's delivery slots (WEBHOOK_AGENCY_CONCURRENCY), so
 * agency A's event is delivered while B's attempts still hang, none of them ended; with the share
 * set to every slot (as before), A's event waits until one of B's attempts times out. Shown by what
 * the receivers hold and get, in order, not by a lag: A's lag beside B's receivers is a benchmark's
 * figure (`BENCH_ONLY=fairness make bench`, bench/webhook-fairness.ts). And an endpoint that stops
 * answering is paced (one attempt per interval, not its retries at full rate) until it answers, gets
 * a new URL or is enabled again.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { eventually, waitFor } from '../support/wait-for';
import { startReceiver, webhookClient } from './webhook-support';

jest.setTimeout(120_000);

const world = useTestApp({ SCHEDULER_INTERVAL_MS: '0' }, { agencies: 2 });
const [a, b] = [asPartner(world, () => world.agencies[0]!), asPartner(world, () => world.agencies[1]!)];
const [hooksA, hooksB] = [webhookClient(world, () => world.agencies[0]!), webhookClient(world, () => world.agencies[1]!)];
const STATUS = ['rental_insurance.status_changed'];

/** A receiver that reads each request and never answers; `open` counts the requests it holds now, `peak` the most at once, `ended` those the service gave up. */
async function silentReceiver() {
  const state = { open: 0, peak: 0, total: 0, ended: 0 };
  const server = http.createServer((req) => {
    req.resume();
    state.open++;
    state.total++;
    state.peak = Math.max(state.peak, state.open);
    req.socket.once('close', () => {
      state.open--;
      state.ended++;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  world.beforeClose(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  // Ends every attempt it holds (the service records a failed attempt), so that a round ends at once.
  const drop = () => server.closeAllConnections();
  return { state, drop, url: (path: string) => `${url}${path}` };
}

interface Round {
  silent: Awaited<ReturnType<typeof silentReceiver>>;
  receiverA: Awaited<ReturnType<typeof startReceiver>>;
}

/**
 * B's 4 silent endpoints get 3 events each, delivered by one process of 4 slots with B's share
 * `share` and attempts cut after `timeoutMs`; `withB` runs once B holds min(share, 4) attempts. Then
 * the round is cleaned up.
 */
async function withBHolding(share: string, timeoutMs: number, withB: (round: Round) => Promise<void>): Promise<void> {
  const deliverer = await world.anotherApp({
    WEBHOOK_DELIVERY_CONCURRENCY: '4',
    WEBHOOK_AGENCY_CONCURRENCY: share,
    WEBHOOK_TIMEOUT_MS: String(timeoutMs),
    WEBHOOK_RETRY_SCHEDULE_MS: '600000',
    SCHEDULER_INTERVAL_MS: '0',
  });
  const silent = await silentReceiver();
  const endpointsB = [];
  for (let i = 0; i < 4; i++) endpointsB.push(await hooksB.register(silent.url(`/b${i}`), STATUS));
  const receiverA = await startReceiver();
  world.beforeClose(() => receiverA.close());
  const endpointA = await hooksA.register(receiverA.url, STATUS);
  try {
    for (let i = 0; i < 3; i++) await b.newGuarantee();
    expect(await eventually(() => silent.state.open >= Math.min(Number(share), 4), { withinMs: 30_000 })).toBe(true);
    await withB({ silent, receiverA });
  } finally {
    // Done with this round: nothing of it may reach the next one.
    silent.drop();
    await deliverer.close();
    await hooksA.remove(endpointA.id);
    for (const endpoint of endpointsB) await hooksB.remove(endpoint.id);
  }
}

describe("When agency B's receivers never answer", () => {
  it("then agency A's event is delivered while B's attempts hang, and B's attempts hold only B's share of the slots", async () => {
    // B's attempts are never cut during the test: whatever A gets, it gets beside them.
    await withBHolding('2', 60_000, async ({ silent, receiverA }) => {
      await a.newGuarantee();
      await receiverA.waitFor((all) => all.length >= 1, 60_000);
      expect({ ended: silent.state.ended, held: silent.state.open, peak: silent.state.peak }).toEqual({ ended: 0, held: 2, peak: 2 });
    });
  });

  it("then, with B's share set to every slot (no fair share), A's event waits until one of B's attempts times out", async () => {
    await withBHolding('4', 3000, async ({ silent, receiverA }) => {
      expect(silent.state.peak).toBe(4);
      const endedBefore = silent.state.ended;
      await a.newGuarantee();
      const received = await receiverA.waitFor((all) => all.length >= 1, 60_000);
      expect(received.length).toBeGreaterThanOrEqual(1);
      // A's attempt needed a slot that only the end of one of B's attempts could free.
      expect(silent.state.ended).toBeGreaterThan(endedBefore);
      expect(silent.state.peak).toBe(4);
    });
  });
});

describe('When an endpoint stops answering', () => {
  it('then after 3 unanswered attempts it is paced instead of retried at full rate, and a new URL brings its deliveries at once', async () => {
    await world.anotherApp({ WEBHOOK_DELIVERY_CONCURRENCY: '4', WEBHOOK_RETRY_SCHEDULE_MS: '100,100,100,100,100,100', SCHEDULER_INTERVAL_MS: '0' });
    // Nothing listens on port 9 (discard): every attempt fails to connect, at once.
    const endpoint = await hooksB.register('http://127.0.0.1:9/gone', STATUS);
    for (let i = 0; i < 4; i++) await b.newGuarantee();
    const attempts = () => world.db.webhookAttempt.count({ where: { delivery: { endpointId: endpoint.id } } });
    expect(await waitFor(attempts, (count) => count >= 3)).toBeGreaterThanOrEqual(3);
    // Settled: every delivery waits for a paced turn. A delivery put off over the endpoint's share
    // (1-2 s) or due for a 100 ms retry comes back, finds the endpoint paced and is put off to a turn;
    // a fixed wait raced those on a loaded machine. At full rate they would all fail instead.
    const waitingForTurn = async () => {
      const deliveries = await world.db.webhookDelivery.findMany({ where: { endpointId: endpoint.id } });
      return deliveries.length > 0 && deliveries.every((d) => d.status === 'pending' && d.nextAttemptAt!.getTime() > Date.now() + 9_000);
    };
    expect(await eventually(waitingForTurn, { withinMs: 15_000 })).toBe(true);
    // At full rate: 4 deliveries x 7 attempts within about a second. Paced: the 3 that started it,
    // those already under way when it began (at most one per slot), and one paced turn.
    expect(await attempts()).toBeLessThanOrEqual(3 + 4 + 1);
    const row = await world.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    expect(row.unansweredInRow).toBeGreaterThanOrEqual(3);
    expect(row.pacedUntil!.getTime()).toBeGreaterThan(Date.now() + 8_000);
    const page = await hooksB.deliveries(endpoint.id);
    for (const delivery of page.body._embedded.webhookDeliveries.filter((d: { status: string }) => d.status === 'pending'))
      expect(Date.parse(delivery.nextAttemptAt)).toBeGreaterThan(Date.now() + 8_000);

    const receiver = await startReceiver();
    world.beforeClose(() => receiver.close());
    const current = await hooksB.get(endpoint.id);
    expect((await hooksB.patch(endpoint.id, { url: receiver.url }, current.headers['etag'] as string)).status).toBe(200);
    await receiver.waitFor((all) => all.length >= 4, 10_000);
    const after = await world.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    expect([after.unansweredInRow, after.pacedUntil]).toEqual([0, null]);
  });
});
