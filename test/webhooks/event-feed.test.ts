/**
 * GET /v1/events while writes go on: a reader following `_links.next` sees every event of its
 * agency exactly once, in one order, however the concurrent transactions interleave: the order a
 * later reader sees too, and one in which a change comes after every change committed before it.
 */
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { webhookClient } from './webhook-support';

const world = useTestApp({ SCHEDULER_INTERVAL_MS: '0' }, { agencies: 2 });
const partner = asPartner(world, () => world.agencies[0]!);
const other = asPartner(world, () => world.agencies[1]!);
const feed = webhookClient(world, () => world.agencies[0]!);

type FeedEvent = { id: string; type: string; cursor: string; agencyId: string; occurredAt: string; data: Record<string, unknown> };

async function readPage(href: string | undefined, limit = 5): Promise<{ events: FeedEvent[]; next: string }> {
  const response = href ? await asPartner(world, world.agencies[0]!).follow(href) : await feed.events({ limit });
  expect(response.status).toBe(200);
  return { events: response.body._embedded.events as FeedEvent[], next: response.body._links.next.href as string };
}

/** The guarantee an event is about. */
const guaranteeOf = (event: FeedEvent) =>
  (event.data['rentalInsurance'] as { id: number } | undefined)?.id ?? (event.data['rentalInsuranceId'] as number);

describe('When a partner pages through the feed while writes go on', () => {
  it('then every event of its agency appears once, none of another agency, with no gap, in one consistent causal order', async () => {
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

    // Order. Each page went on exactly where the one before ended: read in sequence, the pages are one
    // strictly increasing run of the feed's order (the writing transaction, then the position in it).
    const order = new Map((await world.db.event.findMany({ select: { id: true, txId: true, position: true } })).map((row) => [row.id, row]));
    for (const [index, event] of seen.entries()) {
      if (index === 0) continue;
      const [before, after] = [order.get(seen[index - 1]!.id)!, order.get(event.id)!];
      expect(before.txId < after.txId || (before.txId === after.txId && before.position < after.position)).toBe(true);
    }
    // Causality: each comment was written after its guarantee's creation had committed, and comes after it.
    for (const comment of seen.filter((event) => event.type === 'rental_insurance.comment_added')) {
      const creation = seen.findIndex((event) => event.type === 'rental_insurance.status_changed' && guaranteeOf(event) === guaranteeOf(comment));
      expect(creation).toBeGreaterThanOrEqual(0);
      expect(creation).toBeLessThan(seen.indexOf(comment));
    }
    // Consistency: a reader starting afresh, with other page boundaries, sees the very same sequence.
    const again: FeedEvent[] = [];
    for (let page = await readPage(undefined, 7); page.events.length > 0; page = await readPage(page.next)) again.push(...page.events);
    expect(again.map((event) => event.id)).toEqual(ids);
  });

  it('then type and time filters select events, and a bad cursor is 400', async () => {
    const comments = await feed.events({ type: 'rental_insurance.comment_added', limit: 200 });
    expect(comments.body._embedded.events).toHaveLength(16);
    const future = await feed.events({ occurredFrom: new Date(Date.now() + 60_000).toISOString() });
    expect(future.body._embedded.events).toEqual([]);
    const past = await feed.events({ occurredBefore: '2020-01-01T00:00:00Z' });
    expect(past.body._embedded.events).toEqual([]);
    expect((await feed.events({ after: 'bm90LWEtY3Vyc29y' })).status).toBe(400);
    const first = await feed.events({ type: 'rental_insurance.comment_added', limit: 1 });
    const second = await asPartner(world, world.agencies[0]!).follow(first.body._links.next.href);
    expect(second.body._embedded.events[0].id).not.toBe(first.body._embedded.events[0].id);
    // The next page's query as values (for generated clients): the same page as the href.
    const cursor = first.body._embedded.events[0].cursor;
    expect(first.body._links.next.query).toEqual({ type: ['rental_insurance.comment_added'], after: cursor, limit: 1 });
    expect(first.body._links.self.query).toEqual({ type: ['rental_insurance.comment_added'], limit: 1 });
    const byQuery = await feed.events(first.body._links.next.query);
    expect(byQuery.body._embedded.events).toEqual(second.body._embedded.events);
  });
});
