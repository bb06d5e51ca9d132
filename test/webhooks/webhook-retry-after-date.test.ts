/**
 * `Retry-After` in its HTTP-date form (RFC 9110 §10.2.3, §5.6.7: IMF-fixdate, and the obsolete RFC
 * 850 and asctime forms a recipient must also accept, all in GMT): the next attempt waits for that
 * date. The delivering service is a real process whose local time zone is São Paulo's, as a
 * host's may be: an HTTP date means GMT whatever the zone the service runs in. Retry-After is a
 * request to wait only with 429 or 503; with another failure the schedule stands.
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
  await startService(world.databaseUrl, {
    WEBHOOK_DELIVERY_CONCURRENCY: '2',
    WEBHOOK_RETRY_SCHEDULE_MS: '200,200',
    TZ: 'America/Sao_Paulo',
    // The receiver is this test's own process: on a loaded machine it once answered an attempt
    // after the default 10 s, the attempt was recorded as timed out, and its Retry-After went
    // unread (red CI under load). A minute: this file is about reading the date, not timeouts.
    WEBHOOK_TIMEOUT_MS: '60000',
  });
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

/**
 * Sends a test event whose first attempt is answered `status` with `retryAfter`; returns when the
 * second attempt arrived, with the next attempt's time the partner's log showed while it waited, and
 * the time between the two attempts' starts as the service recorded them (its delivery log): a
 * loaded machine can only lengthen it, never shorten it.
 */
async function retriedAfter(retryAfter: string | (() => string), status = 503) {
  const before = receiver.received.length;
  receiver.script.push({ status, headers: () => ({ 'Retry-After': typeof retryAfter === 'string' ? retryAfter : retryAfter() }) });
  const sent = await hooks.test(endpointId);
  expect(sent.status).toBe(202);
  await receiver.waitFor((all) => all.length > before);
  const delivery = async () =>
    (await hooks.deliveries(endpointId)).body._embedded.webhookDeliveries.find((d: { id: string }) => d.id === sent.body.id) as {
      nextAttemptAt: string | null;
      attempts: Array<{ attemptedAt: string; error: string | null }>;
    };
  // The partner's log says when the next attempt comes while it waits (read until the second arrives).
  let nextAttemptAt: string | null = null;
  for (let i = 0; i < 3000 && nextAttemptAt === null && receiver.received.length <= before + 1; i++) {
    const waiting = await delivery();
    if (waiting.attempts.length === 1 && !waiting.attempts[0]!.error?.startsWith('in progress')) nextAttemptAt = waiting.nextAttemptAt;
    else await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await receiver.waitFor((all) => all.length > before + 1, 60_000);
  const secondAt = Date.now();
  const [first, second] = (await delivery()).attempts.map((attempt) => Date.parse(attempt.attemptedAt)).sort((x, y) => x - y);
  return { secondAt, nextAttemptAt, scheduledAfterMs: second! - first! };
}

describe('When the receiver answers 503 with Retry-After as an HTTP date', () => {
  it.each(FORMS)('then the %s form delays the next attempt until that date', async (_form, format) => {
    // Whole seconds (an HTTP date has no fraction), 5 s after the answer is written (however late a
    // loaded machine makes the attempt, the service reads the answer before that date): well beyond
    // the 200 ms of the schedule.
    let retryAt = new Date(0);
    const { secondAt, nextAttemptAt } = await retriedAfter(() => format((retryAt = new Date((Math.floor(Date.now() / 1000) + 5) * 1000))));
    expect(nextAttemptAt).toBe(retryAt.toISOString());
    // Not before that date (how soon after it the workers' polling finds the job is not asserted).
    expect(secondAt).toBeGreaterThanOrEqual(retryAt.getTime());
  });

  it('then a date already past, or a value that is neither seconds nor a date, leaves the schedule as it is', async () => {
    for (const value of [new Date(Date.now() - 60_000).toUTCString(), 'soon', 'Wed, 31 Foo 2026 25:61:00 GMT']) {
      // The schedule's 200 ms after the attempt (its answer's latency and whatever a loaded machine
      // adds come on top: a minute is far beyond them, and far short of a misread date).
      const { scheduledAfterMs } = await retriedAfter(value);
      expect(scheduledAfterMs).toBeGreaterThanOrEqual(100);
      expect(scheduledAfterMs).toBeLessThan(60_000);
    }
  });
});

describe('When the receiver answers another failure with Retry-After', () => {
  it('then the schedule stands: Retry-After asks for a wait only with 429 or 503', async () => {
    // An hour asked for, the schedule's 200 ms kept (a minute is far beyond any answer's latency).
    const { scheduledAfterMs } = await retriedAfter('3600', 500);
    expect(scheduledAfterMs).toBeGreaterThanOrEqual(100);
    expect(scheduledAfterMs).toBeLessThan(60_000);
    // The same header with a 429 is honoured.
    expect((await retriedAfter('3', 429)).scheduledAfterMs).toBeGreaterThanOrEqual(2_900);
  });
});
