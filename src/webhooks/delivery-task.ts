/**
 * The graphile-worker task of one delivery attempt: read the delivery, its endpoint and event
 * (Prisma), sign with every live secret (Standard Webhooks), POST, then record the attempt and
 * its consequences in one transaction: success; a retry queued per the schedule (with the same
 * job key, so a delivery never has two queued attempts); the delivery failed; the endpoint
 * disabled on 410 Gone or after failing for WEBHOOK_DISABLE_AFTER_DAYS. HTTP failures never make
 * the job itself fail: graphile-worker's own retries are only for errors of this code or the
 * database.
 */
import { Webhook } from 'standardwebhooks';
import type { Database } from '../database/prisma-client';
import { toEnvelope } from '../events/event-envelope';
import { TEST_EVENT_TYPE } from '../events/event-types';
import { postWebhook, type AttemptOutcome } from './delivery-http';
import { enqueueDelivery } from '../events/outbox';
import { nextDelayMs, retryAfterMs } from './retry-schedule';
import type { SecretBox } from './secret-box';
import type { UrlPolicy } from './url-safety';
import { recordDeliveryMetrics } from './delivery-metrics';

export interface DeliverySettings {
  box: SecretBox;
  policy: UrlPolicy;
  timeoutMs: number;
  scheduleMs: readonly number[];
  disableAfterDays: number;
}

export async function attemptDelivery(db: Database, deliveryId: string, settings: DeliverySettings): Promise<void> {
  const delivery = await db.webhookDelivery.findUnique({
    where: { id: deliveryId },
    include: { endpoint: true, event: true, _count: { select: { attempts: true } } },
  });
  if (!delivery || delivery.status !== 'pending') return;
  const { endpoint, event } = delivery;
  if (!endpoint.enabled && event.type !== TEST_EVENT_TYPE) {
    await db.webhookDelivery.update({ where: { id: deliveryId }, data: { status: 'failed', nextAttemptAt: null } });
    return;
  }
  const body = JSON.stringify(toEnvelope(event));
  const now = new Date();
  const secrets = [endpoint.secret];
  if (endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now) secrets.push(endpoint.previousSecret);
  const signature = secrets.map((sealed) => new Webhook(settings.box.open(sealed)).sign(event.id, now, body)).join(' ');
  const headers = { 'webhook-id': event.id, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': signature };
  const outcome = await postWebhook(endpoint.url, headers, body, { timeoutMs: settings.timeoutMs, policy: settings.policy });
  recordDeliveryMetrics(outcome, event.occurredAt);
  await recordOutcome(db, delivery, delivery._count.attempts + 1, outcome, settings);
}

interface DeliveryFacts {
  id: string;
  endpointId: string;
  endpoint: { failingSince: Date | null };
}

async function recordOutcome(db: Database, delivery: DeliveryFacts, attemptsMade: number, outcome: AttemptOutcome, settings: DeliverySettings) {
  const succeeded = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
  const gone = outcome.status === 410;
  const error = succeeded ? null : (outcome.error ?? `HTTP ${outcome.status}`);
  const delay = succeeded || gone ? null : nextDelayMs(settings.scheduleMs, attemptsMade, retryAfterMs(outcome.retryAfter));
  const now = new Date();
  const failingSince = succeeded ? null : (delivery.endpoint.failingSince ?? now);
  const failedTooLong = !succeeded && now.getTime() - failingSince!.getTime() >= settings.disableAfterDays * 86_400_000;
  const disabledReason = gone ? 'gone' : failedTooLong ? 'failing' : null;
  await db.$transaction(async (tx) => {
    await tx.webhookAttempt.create({
      data: { deliveryId: delivery.id, responseStatus: outcome.status ?? null, latencyMs: outcome.latencyMs, error },
    });
    const nextAttemptAt = delay === null || disabledReason ? null : new Date(now.getTime() + delay);
    const status = succeeded ? 'succeeded' : nextAttemptAt ? 'pending' : 'failed';
    await tx.webhookDelivery.update({ where: { id: delivery.id }, data: { status, nextAttemptAt } });
    // The endpoint's row changes only when it starts or stops failing, or is disabled: every delivery
    // to one endpoint writing it would make them queue on its lock, one commit at a time.
    if (failingSince !== delivery.endpoint.failingSince || disabledReason) {
      await tx.webhookEndpoint.update({
        where: { id: delivery.endpointId },
        data: { failingSince, ...(disabledReason ? { enabled: false, disabledReason } : {}) },
      });
    }
    if (nextAttemptAt) await enqueueDelivery(tx, delivery.id, nextAttemptAt);
  });
}
