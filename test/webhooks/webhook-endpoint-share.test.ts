/**
 * An endpoint's share of its agency's delivery slots (issue 23 item 3, WEBHOOK_ENDPOINT_CONCURRENCY),
 * through HTTP against real PostgreSQL with two delivering processes: an agency's receiver that
 * holds every request it gets (until the test lets it answer), flooded with deliveries, holds at
 * most its share of attempts at once across both processes, and the same agency's fast endpoint is
 * delivered to while the flooded one still holds them all; with the share set to every slot of the
 * agency, the fast endpoint gets nothing until the flooded one answers. Shown by what each receiver
 * holds and gets, not by a lag: how long the fast endpoint waits is a benchmark's figure
 * (bench/webhook-fairness.ts measures an agency's lag beside another's receivers that never answer).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { useTestApp } from '../support/test-app';
import { eventually } from '../support/wait-for';
import { webhookClient } from './webhook-support';

jest.setTimeout(180_000);

const world = useTestApp({ SCHEDULER_INTERVAL_MS: '0' }, { agencies: 1 });
const hooks = webhookClient(world, () => world.agency);
const FLOOD = 24;

/**
 * A receiver that holds each request until `release()` (then answers 200, and answers at once from
 * then on); `open` counts the requests it holds now, `peak` the most at once, `arrived` each event.
 */
async function receiver(holding: boolean) {
  const state = { open: 0, peak: 0, arrived: new Set<string>() };
  const waiting: Array<() => void> = [];
  let released = !holding;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      state.arrived.add((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string }).id);
      state.open++;
      state.peak = Math.max(state.peak, state.open);
      const answer = () => {
        state.open--;
        res.writeHead(200).end('ok');
      };
      if (released) answer();
      else waiting.push(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const release = () => {
    released = true;
    for (const answer of waiting.splice(0)) answer();
  };
  world.beforeClose(() => {
    release();
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return { state, release, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` };
}

/**
 * Two delivering processes (4 slots each, 3 per agency: 6 for the agency) with the endpoint share
 * `share`; the flooded endpoint holds what it gets. `whileHeld` runs once it holds min(share, 6)
 * attempts, with the fast endpoint's event sender; then everything is released and cleaned up.
 */
async function withFloodedEndpoint(share: string, whileHeld: (world: Flooded) => Promise<void>): Promise<void> {
  const settings = {
    WEBHOOK_DELIVERY_CONCURRENCY: '4',
    WEBHOOK_AGENCY_CONCURRENCY: '3',
    WEBHOOK_ENDPOINT_CONCURRENCY: share,
    // Nothing is cut while the test holds it.
    WEBHOOK_TIMEOUT_MS: '60000',
    SCHEDULER_INTERVAL_MS: '0',
  };
  const deliverers = [await world.anotherApp(settings), await world.anotherApp(settings)];
  const slow = await receiver(true);
  const fast = await receiver(false);
  const slowEndpoint = await hooks.register(slow.url);
  const fastEndpoint = await hooks.register(fast.url);
  try {
    for (let i = 0; i < FLOOD; i++) expect((await hooks.test(slowEndpoint.id)).status).toBe(202);
    const holding = Math.min(Number(share), 6);
    expect(await eventually(() => slow.state.open >= holding, { withinMs: 30_000 })).toBe(true);
    const sendFast = async () => {
      const answer = await hooks.test(fastEndpoint.id);
      expect(answer.status).toBe(202);
      return answer.body.eventId as string;
    };
    await whileHeld({ slow: slow.state, fast: fast.state, sendFast, releaseSlow: slow.release });
  } finally {
    slow.release();
    // Done with this round: nothing of it may reach the next one.
    for (const deliverer of deliverers) await deliverer.close();
    await hooks.remove(slowEndpoint.id);
    await hooks.remove(fastEndpoint.id);
  }
}

interface Flooded {
  slow: { open: number; peak: number };
  fast: { arrived: Set<string> };
  sendFast: () => Promise<string>;
  releaseSlow: () => void;
}

describe("When one of an agency's endpoints holds every request and is flooded", () => {
  it("then it holds at most its share of attempts across both processes, and the agency's other endpoint is delivered to meanwhile", async () => {
    await withFloodedEndpoint('2', async ({ slow, fast, sendFast }) => {
      for (let i = 0; i < 5; i++) {
        const eventId = await sendFast();
        expect(await eventually(() => fast.arrived.has(eventId), { withinMs: 30_000, everyMs: 20 })).toBe(true);
      }
      // All that time the flooded endpoint answered nothing and held exactly its share.
      expect([slow.open, slow.peak]).toEqual([2, 2]);
    });
  });

  it("then, with the endpoint's share set to all of the agency's slots, the other endpoint gets nothing until the flooded one answers", async () => {
    await withFloodedEndpoint('6', async ({ slow, fast, sendFast, releaseSlow }) => {
      expect(slow.peak).toBe(6);
      const eventId = await sendFast();
      // Every slot of the agency is held: the event waits (a second is plenty for a free slot to be taken).
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect([fast.arrived.has(eventId), slow.open]).toEqual([false, 6]);
      releaseSlow();
      expect(await eventually(() => fast.arrived.has(eventId), { withinMs: 30_000, everyMs: 20 })).toBe(true);
    });
  });
});
