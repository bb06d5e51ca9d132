/**
 * GET /v1/events while writes go on: a reader following `_links.next` sees every event of its
 * agency exactly once, in one order, however the concurrent transactions interleave.
 */
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { webhookClient } from './webhook-support';

const world = useTestApp({ SCHEDULER_INTERVAL_MS: '0' }, { agencies: 2 });
const partner = asPartner(world, () => world.agencies[0]!);
const other = asPartner(world, () => world.agencies[1]!);
const feed = webhookClient(world, () => world.agencies[0]!);

type FeedEvent = { id: string; type: string; cursor: string; agencyId: string; occurredAt: string };

async function readPage(href: string | undefined): Promise<{ events: FeedEvent[]; next: string }> {
  const response = href ? await asPartner(world, world.agencies[0]!).follow(href) : await feed.events({ limit: 5 });
  expect(response.status).toBe(200);
  return { events: response.body._embedded.events as FeedEvent[], next: response.body._links.next.href as string };
}

describe('When a partner pages through the feed while writes go on', () => {
  it('then every event of its agency appears once, none of another agency, with no gap', async () => {
    let writing = true;
    const writers = (async () => {
      for (let round = 0; round < 8; round++) {
        const created = await Promise.all([partner.newGuarantee(), partner.newGuarantee(), other.newGuarantee(), partner.newGuarantee()]);
        await Promise.all(created.slice(0, 2).map((g) => partner.comment(g.id, `round ${round}`)));
      }
      writing = false;
    })();
    const seen: FeedEvent[] = [];
    let next: string | undefined;
    let emptyAfterWrites = 0;
    // The feed shows an event once every older transaction of the server has ended (event-feed.ts),
    // and other suites' transactions run beside this one: after the writes, it is read until every
    // event showed (or 15 s passed, and the assertions below tell what is missing).
    const expected = 8 * 3 + 8 * 2;
    let deadline = Infinity;
    while (emptyAfterWrites < 2 || (seen.length < expected && Date.now() < deadline)) {
      const page = await readPage(next);
      seen.push(...page.events);
      next = page.next;
      if (page.events.length === 0 && !writing) {
        emptyAfterWrites += 1;
        deadline = Math.min(deadline, Date.now() + 15_000);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    await writers;
    const ids = seen.map((event) => event.id);
    expect(new Set(ids).size).toBe(ids.length);
    const stored = await world.db.event.findMany({ where: { companyId: world.agencies[0]!.companyId }, select: { id: true } });
    expect(new Set(ids)).toEqual(new Set(stored.map((event) => event.id)));
    expect(ids).toHaveLength(expected);
    expect(seen.every((event) => event.agencyId === world.agencies[0]!.companyId)).toBe(true);
  });

  it('then type and time filters select events, and a bad cursor is 400', async () => {
    const comments = await feed.events({ type: 'rental_insurance.comment_added', limit: 200 });
    expect(comments.body._embedded.events).toHaveLength(16);
    const future = await feed.events({ occurredFrom: new Date(Date.now() + 60_000).toISOString() });
    expect(future.body._embedded.events).toEqual([]);
    const past = await feed.events({ occurredBefore: '2020-01-01T00:00:00Z' });
    expect(past.body._embedded.events).toEqual([]);
    expect((await feed.events({ after: 'bm90LWEtY3Vyc29y' })).status).toBe(400);
    const first = await feed.events({ limit: 1 });
    const second = await asPartner(world, world.agencies[0]!).follow(first.body._links.next.href);
    expect(second.body._embedded.events[0].id).not.toBe(first.body._embedded.events[0].id);
  });
});
