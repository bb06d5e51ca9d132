/**
 * Smaller promises of the feed and of endpoints (issue 23 list 7): every date-time the document
 * accepts filters the feed (a leap second, year 0, offsets of ±23:59) instead of a 500; a cursor
 * beyond 64 bits is a 400, not a 500; and two rotations of one endpoint's secret at once both
 * answer a secret that signs.
 */
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { startReceiver, verify, webhookClient } from './webhook-support';
import { eventually } from '../support/wait-for';

const world = useTestApp({ SCHEDULER_INTERVAL_MS: '0', WEBHOOK_DELIVERY_CONCURRENCY: '2' }, { agencies: 1 });
const hooks = webhookClient(world, () => world.agency);

beforeAll(async () => {
  await asPartner(world).newGuarantee();
  // The feed shows an event once every older transaction of the server has ended (event-feed.ts).
  await eventually(async () => (await hooks.events({})).body._embedded.events.length > 0, { withinMs: 15_000, everyMs: 100 });
});

async function eventCount(query: Record<string, string>): Promise<number> {
  const response = await hooks.events({ limit: 200, ...query });
  expect(response.status).toBe(200);
  return response.body._embedded.events.length as number;
}

describe('When the feed is filtered by a date-time at the edges of RFC 3339', () => {
  it.each([
    ['a leap second', '2016-12-31T23:59:60Z', 1, 0],
    ['an offset of +23:59', '2016-01-01T00:00:00+23:59', 1, 0],
    ['an offset of -23:59', '2016-01-01T00:00:00-23:59', 1, 0],
    ['the last instant of year 9999', '9999-12-31T23:59:59.999Z', 0, 1],
  ])('then %s filters as the instant it names', async (_case, instant, from, before) => {
    expect(await eventCount({})).toBeGreaterThan(0);
    expect(Math.min(await eventCount({ occurredFrom: instant }), 1)).toBe(from);
    expect(Math.min(await eventCount({ occurredBefore: instant }), 1)).toBe(before);
  });
});

describe('When the feed is filtered by a date-time outside the years 0001-9999 (issue 34)', () => {
  it.each(['0000-01-01T00:00:00Z', '0001-01-01T00:00:00+00:01', '10000-01-01T00:00:00Z'])(
    'then %s is 400 validation_failed naming the filter',
    async (instant) => {
      for (const name of ['occurredFrom', 'occurredBefore']) {
        const response = await hooks.events({ [name]: instant });
        expect(response.status).toBe(400);
        expect(response.body).toMatchObject({ code: 'validation_failed', details: [`query.${name}: invalid date-time`] });
      }
    },
  );
});

describe('When a cursor holds a number beyond 64 bits', () => {
  it.each(['9999999999999999999.1', '1.9223372036854775808'])('then after=%s is 400 validation_failed naming `after`', async (inside) => {
    const response = await hooks.events({ after: Buffer.from(inside).toString('base64url') });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'validation_failed', details: ['after: is not a cursor of this feed'] });
  });
});

describe('When two rotations of one endpoint’s secret run at once', () => {
  it('then both answer 200 and both secrets they show sign the next delivery', async () => {
    const receiver = await startReceiver();
    world.beforeClose(() => receiver.close());
    const endpoint = await hooks.register(receiver.url);
    const [first, second] = await Promise.all([hooks.rotate(endpoint.id), hooks.rotate(endpoint.id)]);
    expect([first!.status, second!.status]).toEqual([200, 200]);
    expect(first!.body.secret).not.toEqual(second!.body.secret);

    expect((await hooks.test(endpoint.id)).status).toBe(202);
    const [received] = await receiver.waitFor((all) => all.some((r) => r.event.type === 'webhook.test'));
    expect(() => verify(first!.body.secret, received!)).not.toThrow();
    expect(() => verify(second!.body.secret, received!)).not.toThrow();
    expect(() => verify(endpoint.secret, received!)).toThrow();
  });
});
