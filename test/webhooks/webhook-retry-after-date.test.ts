/**
 * `Retry-After` in its HTTP-date form (RFC 9110 §10.2.3, §5.6.7: IMF-fixdate, and the obsolete RFC
 * 850 and asctime forms a recipient must also accept, all in GMT): the next attempt waits for that
 * date. The delivering service is a real process whose local time zone is São Paulo's, as a
 * host's may be: an HTTP date means GMT whatever the zone the service runs in.
 */
import { startService, stopAllServices } from '../support/service-process';
import { useTestApp } from '../support/test-app';
import { startReceiver, webhookClient, type Receiver } from './webhook-support';

jest.setTimeout(120_000);

const world = useTestApp({ SCHEDULER_INTERVAL_MS: '0' }, { agencies: 1 });
world.beforeClose(stopAllServices);
const hooks = webhookClient(world, () => world.agency);
let receiver: Receiver;
let endpointId: string;

beforeAll(async () => {
  receiver = await startReceiver();
  world.beforeClose(() => receiver.close());
  endpointId = (await hooks.register(receiver.url)).id;
  await startService(world.databaseUrl, { WEBHOOK_DELIVERY_CONCURRENCY: '2', WEBHOOK_RETRY_SCHEDULE_MS: '200,200', TZ: 'America/Sao_Paulo' });
});

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number) => String(n).padStart(2, '0');
const clock = (d: Date) => `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;

/** The three forms of one instant, written here from the RFC's grammar (not by the code under test). */
const FORMS: Array<[string, (d: Date) => string]> = [
  ['IMF-fixdate', (d) => d.toUTCString()],
  ['RFC 850', (d) => `${DAYS[d.getUTCDay()]}, ${two(d.getUTCDate())}-${MONTHS[d.getUTCMonth()]}-${two(d.getUTCFullYear() % 100)} ${clock(d)} GMT`],
  [
    'asctime',
    (d) =>
      `${DAYS[d.getUTCDay()]!.slice(0, 3)} ${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${clock(d)} ${d.getUTCFullYear()}`,
  ],
];

/** Sends a test event whose first attempt is answered 503 with `retryAfter`; returns when the second attempt arrived. */
async function retriedAfter(retryAfter: string): Promise<{ firstAt: number; secondAt: number; nextAttemptAt: string | null }> {
  const before = receiver.received.length;
  receiver.script.push({ status: 503, headers: { 'Retry-After': retryAfter } });
  const sent = await hooks.test(endpointId);
  expect(sent.status).toBe(202);
  await receiver.waitFor((all) => all.length > before);
  const firstAt = Date.now();
  // The partner's log says when the next attempt comes while it waits.
  let nextAttemptAt: string | null = null;
  for (let i = 0; i < 50 && nextAttemptAt === null; i++) {
    const delivery = (await hooks.deliveries(endpointId)).body._embedded.webhookDeliveries.find((d: { id: string }) => d.id === sent.body.id);
    if (delivery.attempts.length === 1) nextAttemptAt = delivery.nextAttemptAt;
    else await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await receiver.waitFor((all) => all.length > before + 1, 15_000);
  return { firstAt, secondAt: Date.now(), nextAttemptAt };
}

describe('When the receiver answers 503 with Retry-After as an HTTP date', () => {
  it.each(FORMS)('then the %s form delays the next attempt until that date', async (_form, format) => {
    // Whole seconds (an HTTP date has no fraction), 3 s away: well beyond the 200 ms of the schedule.
    const retryAt = new Date((Math.floor(Date.now() / 1000) + 3) * 1000);
    const { secondAt, nextAttemptAt } = await retriedAfter(format(retryAt));
    expect(nextAttemptAt).toBe(retryAt.toISOString());
    expect(secondAt).toBeGreaterThanOrEqual(retryAt.getTime());
    // graphile-worker polls for jobs whose time has come every second.
    expect(secondAt).toBeLessThan(retryAt.getTime() + 3000);
  });

  it('then a date already past, or a value that is neither seconds nor a date, leaves the schedule as it is', async () => {
    for (const value of [new Date(Date.now() - 60_000).toUTCString(), 'soon', 'Wed, 31 Foo 2026 25:61:00 GMT']) {
      const { firstAt, secondAt } = await retriedAfter(value);
      expect(secondAt - firstAt).toBeLessThan(1500);
    }
  });
});
