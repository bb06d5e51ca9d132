/**
 * verifyWebhook: checks a delivery's Standard Webhooks signature (the headers `webhook-id`,
 * `webhook-timestamp`, `webhook-signature`) against the raw body, and returns the event typed as
 * the document's `webhooks` declare it (generated/webhook-events.ts). The HMAC is computed by the
 * `standardwebhooks` library, the one the service signs with; this file adds what its `verify`
 * lacks: several secrets (both live secrets during a rotation), a tolerance and clock of your
 * choosing, and a reason on every refusal.
 */
import { Webhook } from 'standardwebhooks';
import { PartnerClientError } from './errors.js';
import type { WebhookEvent } from './generated/webhook-events.js';

/** Request headers as Node (`req.headers`), Express, or the Fetch API (`request.headers`) give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** Largest distance between `webhook-timestamp` and the clock, in seconds (default 300, as the document says). */
  toleranceSeconds?: number;
  /** The clock, in ms (default Date.now). */
  now?: () => number;
}

export type WebhookRefusal = 'missing_headers' | 'stale_timestamp' | 'bad_signature' | 'not_an_event';

/** The delivery is not one the service signed (or not within the tolerance): answer 400 and drop it. */
export class WebhookVerificationError extends PartnerClientError {
  override name = 'WebhookVerificationError';
  constructor(
    message: string,
    readonly reason: WebhookRefusal,
  ) {
    super(message);
  }
}

export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

/**
 * @param rawBody the request body exactly as received (a string, Buffer or Uint8Array), never a
 *   body a JSON middleware already parsed: re-serialised JSON has other bytes and fails.
 * @param secrets the endpoint's `whsec_...` secret, or both secrets during a rotation.
 * @throws WebhookVerificationError when the headers are missing, the timestamp is outside the
 *   tolerance, no signature matches any secret, or the verified body is not an event.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secrets: string | readonly string[],
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new TypeError('verifyWebhook: rawBody must be the body as received (string or bytes), not parsed JSON');
  }
  const keys = (typeof secrets === 'string' ? [secrets] : [...secrets]).filter((secret) => secret.length > 0);
  if (keys.length === 0) throw new TypeError('verifyWebhook: give at least one whsec_ secret');
  const id = headerOf(headers, 'webhook-id');
  const timestamp = headerOf(headers, 'webhook-timestamp');
  const signatures = headerOf(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError('webhook-id, webhook-timestamp and webhook-signature are required', 'missing_headers');
  }
  const seconds = /^\d{1,12}$/.test(timestamp) ? Number(timestamp) : Number.NaN;
  const tolerance = options.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now ?? Date.now)() / 1000);
  if (!(Math.abs(nowSeconds - seconds) <= tolerance)) {
    throw new WebhookVerificationError(
      `webhook-timestamp is not within ${tolerance} s of this clock (a replay, or a clock to fix)`,
      'stale_timestamp',
    );
  }
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  const offered = signatures
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => entry.slice(3));
  const signedAt = new Date(seconds * 1000);
  const matches = keys.some((secret) => {
    const expected = new Webhook(secret).sign(id, signedAt, body).slice(3);
    return offered.some((signature) => constantTimeEqual(signature, expected));
  });
  if (!matches) throw new WebhookVerificationError('no webhook-signature matches the given secrets', 'bad_signature');
  let event: unknown;
  try {
    event = JSON.parse(body);
  } catch {
    throw new WebhookVerificationError('the signed body is not JSON', 'not_an_event');
  }
  if (
    typeof event !== 'object' ||
    event === null ||
    typeof (event as { type?: unknown }).type !== 'string' ||
    (event as { id?: unknown }).id !== id
  ) {
    throw new WebhookVerificationError('the signed body is not an event whose id is the webhook-id', 'not_an_event');
  }
  // An endpoint receives only the types it subscribes to (and webhook.test), all in the union.
  return event as WebhookEvent;
}

function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(' ') : value;
}

/** Compares without stopping at the first difference, so the time taken says nothing about the signature. */
function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i += 1) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}
