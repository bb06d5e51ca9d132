/**
 * Fair delivery (issue 23 item 3), through HTTP against real PostgreSQL: agency B's receivers that
 * never answer hold only B's share of a process's delivery slots (WEBHOOK_AGENCY_CONCURRENCY), so
 * agency A's event is delivered at once, while B's attempts hang; with the share set to every slot
 * (as before), A's event waits for B's timeouts. And an endpoint that stops answering is paced (one
 * attempt per interval, not its retries at full rate) until it answers, gets a new URL or is enabled
 * again.
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
const TIMEOUT_MS = 6000;

/** A receiver that reads each request and never answers; `open` counts the requests it holds now, `peak` the most at once. */
async function silentReceiver() {
  const state = { open: 0, peak: 0, total: 0 };
  const server = http.createServer((req) => {
    req.resume();
    state.open++;
    state.total++;
    state.peak = Math.max(state.peak, state.open);
    req.socket.once('close', () => state.open--);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  world.beforeClose(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return { state, url: (path: string) => `${url}${path}` };
}

/** B's 4 silent endpoints get 3 events each; then A's one event: how long until A's receiver has it, and B's peak of held attempts. */
async function aBehindB(share: string): Promise<{ lagMs: number; peakB: number }> {
  const deliverer = await world.anotherApp({
    WEBHOOK_DELIVERY_CONCURRENCY: '4',
    WEBHOOK_AGENCY_CONCURRENCY: share,
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    WEBHOOK_RETRY_SCHEDULE_MS: '600000',
    SCHEDULER_INTERVAL_MS: '0',
  });
  const silent = await silentReceiver();
  const endpointsB = [];
  for (let i = 0; i < 4; i++) endpointsB.push(await hooksB.register(silent.url(`/b${i}`), STATUS));
  const receiverA = await startReceiver();
  world.beforeClose(() => receiverA.close());
  const endpointA = await hooksA.register(receiverA.url, STATUS);
  for (let i = 0; i < 3; i++) await b.newGuarantee();
  expect(await eventually(() => silent.state.open >= Math.min(Number(share), 4), { withinMs: 10_000 })).toBe(true);

  const created = Date.now();
  await a.newGuarantee();
  await receiverA.waitFor((all) => all.length >= 1, 60_000);
  const lagMs = Date.now() - created;
  // Done with this round: nothing of it may reach the next one.
  await deliverer.close();
  await hooksA.remove(endpointA.id);
  for (const endpoint of endpointsB) await hooksB.remove(endpoint.id);
  return { lagMs, peakB: silent.state.peak };
}

describe("When agency B's receivers never answer", () => {
  it("then agency A's event is delivered at once, and B's attempts hold only B's share of the slots", async () => {
    const { lagMs, peakB } = await aBehindB('2');
    expect(peakB).toBe(2);
    expect(lagMs).toBeLessThan(TIMEOUT_MS / 3);
  });

  it("then, with B's share set to every slot (no fair share), A's event waits for B's attempts to time out", async () => {
    const { lagMs, peakB } = await aBehindB('4');
    expect(peakB).toBe(4);
    expect(lagMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 500);
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
