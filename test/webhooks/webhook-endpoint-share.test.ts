/**
 * An endpoint's share of its agency's delivery slots (issue 23 item 3, WEBHOOK_ENDPOINT_CONCURRENCY),
 * through HTTP against real PostgreSQL with two delivering processes: an agency's receiver that
 * answers, but slowly (1.5 s, so it is never paced), flooded with deliveries, holds at most its share
 * of attempts at once across both processes, and the same agency's fast endpoint keeps a low lag;
 * with the share set to every slot of the agency, the fast endpoint waits behind the slow one.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { useTestApp } from '../support/test-app';
import { eventually } from '../support/wait-for';
import { webhookClient } from './webhook-support';

jest.setTimeout(180_000);

const world = useTestApp({ SCHEDULER_INTERVAL_MS: '0' }, { agencies: 1 });
const hooks = webhookClient(world, () => world.agency);
const SLOW_MS = 1500;
const FLOOD = 24;

/** A receiver that answers 200 after `delayMs`; `open` counts the requests it holds now, `peak` the most at once, `arrived` each event's arrival time. */
async function receiver(delayMs: number) {
  const state = { open: 0, peak: 0, arrived: new Map<string, number>() };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      state.arrived.set((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string }).id, Date.now());
      state.open++;
      state.peak = Math.max(state.peak, state.open);
      setTimeout(() => {
        state.open--;
        res.writeHead(200).end('ok');
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  world.beforeClose(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return { state, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` };
}

/** The slow endpoint gets FLOOD test deliveries; then the fast one gets 5, one after the other: each one's lag, and the slow one's peak of attempts at once. */
async function fastBesideSlow(share: string): Promise<{ lagsMs: number[]; peakSlow: number }> {
  const settings = {
    WEBHOOK_DELIVERY_CONCURRENCY: '4',
    WEBHOOK_AGENCY_CONCURRENCY: '3',
    WEBHOOK_ENDPOINT_CONCURRENCY: share,
    SCHEDULER_INTERVAL_MS: '0',
  };
  const deliverers = [await world.anotherApp(settings), await world.anotherApp(settings)];
  const slow = await receiver(SLOW_MS);
  const fast = await receiver(0);
  const slowEndpoint = await hooks.register(slow.url);
  const fastEndpoint = await hooks.register(fast.url);
  for (let i = 0; i < FLOOD; i++) expect((await hooks.test(slowEndpoint.id)).status).toBe(202);
  expect(await eventually(() => slow.state.open >= Math.min(Number(share), 6), { withinMs: 10_000 })).toBe(true);

  const lagsMs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const sent = Date.now();
    const answer = await hooks.test(fastEndpoint.id);
    expect(answer.status).toBe(202);
    const eventId = answer.body.eventId as string;
    expect(await eventually(() => fast.state.arrived.has(eventId), { withinMs: 30_000, everyMs: 20 })).toBe(true);
    lagsMs.push(fast.state.arrived.get(eventId)! - sent);
  }
  const peakSlow = slow.state.peak;
  // Done with this round: nothing of it may reach the next one.
  for (const deliverer of deliverers) await deliverer.close();
  await hooks.remove(slowEndpoint.id);
  await hooks.remove(fastEndpoint.id);
  return { lagsMs, peakSlow };
}

describe("When one of an agency's endpoints answers slowly and is flooded", () => {
  it("then it holds at most its share of attempts across both processes, and the agency's fast endpoint keeps a low lag", async () => {
    const { lagsMs, peakSlow } = await fastBesideSlow('2');
    expect(peakSlow).toBe(2);
    expect(Math.max(...lagsMs)).toBeLessThan(SLOW_MS / 2);
  });

  it("then, with the endpoint's share set to all of the agency's slots, the fast endpoint waits behind the slow one", async () => {
    const { lagsMs, peakSlow } = await fastBesideSlow('6');
    expect(peakSlow).toBe(6);
    expect(Math.max(...lagsMs)).toBeGreaterThanOrEqual(SLOW_MS / 2);
  });
});
