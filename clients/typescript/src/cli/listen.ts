/**
 * `rental-guarantee listen`: follows the agency's event feed (GET /v1/events, cursor-paged) and
 * forwards every event to a local handler, signed with a local secret, showing each answer. The
 * cursor of the last event forwarded is saved after each event (listen-state.ts), so a restart
 * resumes right after it. An event is forwarded until the handler answers (any status: it is shown
 * and the next event follows); while nothing answers (the handler is restarting), the same event
 * is tried again, so none is skipped.
 */
import { PartnerApiError, PartnerNetworkError } from '../errors.js';
import type { PartnerClient } from '../client.js';
import type { components } from '../generated/partner-api.js';
import type { WebhookEvent } from '../generated/webhook-events.js';
import { apiErrorOf } from '../results.js';
import { forward } from './forward.js';
import type { ListenState } from './listen-state.js';

export interface ListenOptions {
  client: PartnerClient;
  /** Which feed the cursor belongs to (`<base URL> <client ID>`). */
  feed: string;
  forwardTo: string;
  state: ListenState;
  /** The feed's `type` filter (the server refuses unknown types with 400, naming them). */
  types?: components['schemas']['WebhookEventType'][];
  /** Forward every event the feed still keeps (30 days) instead of only those after the first run. */
  fromStart: boolean;
  pollIntervalMs: number;
  timeoutMs: number;
  print: (line: string) => void;
  signal: AbortSignal;
}

const PAGE_SIZE = 200;
const USER_AGENT = 'rental-guarantee-listen (@rental-guarantee/partner-client)';

export async function listen(options: ListenOptions): Promise<void> {
  const { state, feed, print, signal } = options;
  let after = state.cursor(feed);
  if (after !== undefined) print('Forwarding the events after the last one forwarded.');
  else if (options.fromStart) print('Forwarding every event the feed keeps, then the new ones.');
  else {
    // First run: from now on. Walk to the end of the feed (exact, whatever the clocks say).
    after = await endOfFeed(options);
    if (after !== undefined) state.setCursor(feed, after);
    print('Forwarding the events from now on (first run; --from-start forwards the older ones too).');
  }
  while (!signal.aborted) {
    const events = await readPage(options, after);
    if (events === undefined || events.length === 0) {
      await sleep(options.pollIntervalMs, signal);
      continue;
    }
    for (const event of events) {
      if (!(await forwardUntilAnswered(options, event))) return;
      state.setCursor(feed, event.cursor);
      after = event.cursor;
    }
  }
}

/** False when listen was stopped before the handler answered (the event is forwarded again next run). */
async function forwardUntilAnswered(options: ListenOptions, event: WebhookEvent): Promise<boolean> {
  const { print, signal } = options;
  for (;;) {
    if (signal.aborted) return false;
    const answer = await forward(event, {
      url: options.forwardTo,
      secret: options.state.secret,
      timeoutMs: options.timeoutMs,
      userAgent: USER_AGENT,
    });
    const what = `${event.occurredAt}  ${event.type}  ${event.id}`;
    if (answer.status !== undefined) {
      print(`${what}  -> ${answer.status} (${answer.durationMs} ms)`);
      return true;
    }
    print(`${what}  -> no answer (${answer.failure}); trying again in ${options.pollIntervalMs / 1000} s`);
    await sleep(options.pollIntervalMs, signal);
  }
}

/** One page after `after`; undefined when the service cannot be reached for now (told, then tried again). */
async function readPage(options: ListenOptions, after: string | undefined): Promise<WebhookEvent[] | undefined> {
  try {
    const { data, error, response } = await options.client.api.GET('/v1/events', {
      params: { query: { limit: PAGE_SIZE, ...(after === undefined ? {} : { after }), ...(options.types ? { type: options.types } : {}) } },
      signal: options.signal,
    });
    if (!response.ok || !data) throw apiErrorOf(response, error);
    return data._embedded.events as WebhookEvent[];
  } catch (error) {
    if (options.signal.aborted) return undefined;
    const transient = error instanceof PartnerNetworkError || (error instanceof PartnerApiError && (error.status >= 500 || error.status === 429));
    if (!transient) throw error;
    options.print(`event feed unavailable (${error.message}); trying again`);
    return undefined;
  }
}

async function endOfFeed(options: ListenOptions): Promise<string | undefined> {
  let after: string | undefined;
  for (;;) {
    const events = await readPage(options, after);
    if (events === undefined) {
      if (options.signal.aborted) return after;
      await sleep(options.pollIntervalMs, options.signal);
      continue;
    }
    if (events.length === 0) return after;
    after = events[events.length - 1]!.cursor;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
