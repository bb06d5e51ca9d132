/**
 * The job of one delivery attempt (delivery-worker.ts): read the delivery, its endpoint and event,
 * sign with every live secret (Standard Webhooks), record the attempt as started, POST, then complete
 * it with its outcome and consequences atomically (delivery-store.ts): success; a retry queued per the schedule (with the
 * same job key, so a delivery never has two queued attempts); the delivery failed; the endpoint
 * disabled on 410 Gone or after failing for WEBHOOK_DISABLE_AFTER_DAYS. HTTP failures never make
 * the job itself fail: pg-boss's own retries are only for errors of this code or the database, and
 * for a job whose process stopped sending heartbeats (killed mid-attempt).
 */
import { Webhook } from 'standardwebhooks';
import type { Database } from '../database/prisma-client';
import { toEnvelope } from '../events/event-envelope';
import { TEST_EVENT_TYPE } from '../events/event-types';
import { postWebhook, type AttemptOutcome } from './delivery-http';
import { failDelivery, readDelivery, recordAttempt, startAttempt, type AttemptRecord, type DeliveryToAttempt } from './delivery-store';
import { nextDelayMs, retryAfterMs } from './retry-schedule';
import type { SecretBox } from './secret-box';
import type { UrlPolicy } from './url-safety';
import { recordDeliveryMetrics } from './delivery-metrics';
import { deferDelivery, endPacing, PACE_AFTER, paceMs, pacedTurn, pacingChange } from './delivery-pacing';
import { MAX_ATTEMPTS_PER_DELIVERY } from './webhook-pages';
import { BUSY_DEFER_MS, BUSY_SPREAD_MS } from './endpoint-share';
import { YIELDING_PRIORITY } from '../job-queue/delivery-queue';
import { withTraceHeaders } from '../tracing/tracing';

export interface DeliverySettings {
  box: SecretBox;
  policy: UrlPolicy;
  timeoutMs: number;
  scheduleMs: readonly number[];
  disableAfterDays: number;
  /** At most this many attempts of one endpoint at once, across all processes (endpoint-share.ts). */
  endpointConcurrency: number;
}

/**
 * `claim` is aborted by pg-boss when this process's hold on the job lapsed (its heartbeat stopped
 * reaching the database, and another process may now make the attempt): the request is cut short
 * and its outcome is not recorded (its started row is interrupted), so two attempts of a delivery
 * never overlap, and a late process never overwrites what the next attempt recorded.
 */
export async function attemptDelivery(db: Database, deliveryId: string, settings: DeliverySettings, claim?: AbortSignal): Promise<void> {
  const delivery = await readDelivery(db, deliveryId);
  if (!delivery || delivery.status !== 'pending') return;
  const { event } = delivery;
  if (!delivery.enabled && event.type !== TEST_EVENT_TYPE) return failDelivery(db, deliveryId);
  // Scopes hold at delivery too: the endpoint's credential was revoked or lost a scope since the event was queued.
  if (!delivery.ownerMayRead && event.type !== TEST_EVENT_TYPE) return void (await recordAttempt(db, notPermitted(delivery)));
  // The documented cap holds whatever queued this attempt (a redelivery racing a retry).
  if (delivery.attemptsMade >= MAX_ATTEMPTS_PER_DELIVERY) return failDelivery(db, deliveryId);
  // The endpoint's share of its agency's slots: over it, the attempt waits (before claiming a paced turn it could not use).
  if (delivery.attemptsAhead >= settings.endpointConcurrency) {
    return deferDelivery(db, deliveryId, new Date(Date.now() + BUSY_DEFER_MS), BUSY_SPREAD_MS, YIELDING_PRIORITY);
  }
  if (delivery.unansweredInRow >= PACE_AFTER) {
    // A paced endpoint: one attempt per interval across all processes; the others wait for a later turn.
    const interval = paceMs(delivery.unansweredInRow, settings.timeoutMs);
    const nextTurn = await pacedTurn(db, delivery.endpointId, interval);
    if (nextTurn) return deferDelivery(db, deliveryId, nextTurn, interval);
  }
  const body = JSON.stringify(toEnvelope(event));
  const now = new Date();
  const secrets = [delivery.secret];
  if (delivery.previousSecret && delivery.previousSecretExpiresAt && delivery.previousSecretExpiresAt > now) secrets.push(delivery.previousSecret);
  const signature = secrets.map((sealed) => new Webhook(settings.box.open(sealed)).sign(event.id, now, body)).join(' ');
  // The trace context goes to the receiver too (the HTTP instrumentation's client span replaces it with its own).
  const headers = withTraceHeaders({
    'webhook-id': event.id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signature,
  });
  const attemptId = await startAttempt(db, deliveryId);
  const outcome = await postWebhook(delivery.url, headers, body, { timeoutMs: settings.timeoutMs, policy: settings.policy, signal: claim });
  claim?.throwIfAborted();
  recordDeliveryMetrics(outcome, event.occurredAt);
  // Not recorded: the next attempt (another process) took the delivery over; the job is left to pg-boss.
  if (!(await recordAttempt(db, consequences(delivery, outcome, settings), attemptId)))
    throw new Error('the attempt was interrupted before its outcome was recorded');
  // A paced endpoint answered: what waited for its turns goes now.
  if (delivery.unansweredInRow >= PACE_AFTER && outcome.status !== undefined) await endPacing(db, delivery.endpointId);
}

/** An attempt not made: recorded (the partner sees why in the delivery), the delivery failed, the endpoint untouched. */
function notPermitted(delivery: DeliveryToAttempt): AttemptRecord {
  return {
    deliveryId: delivery.id,
    endpointId: delivery.endpointId,
    responseStatus: null,
    latencyMs: 0,
    error: `not sent: the endpoint's credential is revoked or may no longer read ${delivery.event.type} events`,
    status: 'failed',
    nextAttemptAt: null,
    endpointChange: null,
    // No request was made: the endpoint's pacing is neither advanced nor ended.
    pacing: null,
  };
}

/** What an attempt's outcome means for the delivery, its endpoint and its next attempt. */
function consequences(delivery: DeliveryToAttempt, outcome: AttemptOutcome, settings: DeliverySettings): AttemptRecord {
  const succeeded = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
  const gone = outcome.status === 410;
  // One instant for the delay and the time it counts from: a Retry-After date is then the next attempt's time exactly.
  const now = new Date();
  // Retry-After means "come back later" with a 429 or a 503 (RFC 6585 §4, RFC 9110 §15.6.4); on
  // another failure it is not a request to wait, and the schedule stands.
  const askedToWait = outcome.status === 429 || outcome.status === 503;
  const retryAfter = askedToWait ? retryAfterMs(outcome.retryAfter, now.getTime()) : null;
  const delay = succeeded || gone ? null : nextDelayMs(settings.scheduleMs, delivery.attemptsMade + 1, retryAfter);
  const failingSince = succeeded ? null : (delivery.failingSince ?? now);
  const failedTooLong = failingSince !== null && now.getTime() - failingSince.getTime() >= settings.disableAfterDays * 86_400_000;
  const disabledReason = gone ? 'gone' : failedTooLong ? 'failing' : null;
  const nextAttemptAt = delay === null || disabledReason ? null : new Date(now.getTime() + delay);
  return {
    deliveryId: delivery.id,
    endpointId: delivery.endpointId,
    responseStatus: outcome.status ?? null,
    latencyMs: outcome.latencyMs,
    error: succeeded ? null : (outcome.error ?? `HTTP ${outcome.status}`),
    status: succeeded ? 'succeeded' : nextAttemptAt ? 'pending' : 'failed',
    nextAttemptAt,
    // Every delivery to one endpoint writing its row would make them queue on its lock, one commit at a time.
    endpointChange: failingSince !== delivery.failingSince || disabledReason ? { failingSince, disabledReason } : null,
    pacing: pacingChange(outcome.status !== undefined, delivery.unansweredInRow),
  };
}
