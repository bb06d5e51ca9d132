/** Webhook rows to the contract's shapes. Secrets are never mapped (only shown once, by revealOnce). */
import type { components } from '../generated/partner-api';
import type { WebhookEndpoint } from '../generated/prisma/client';
import type { AttemptView, DeliveryRow } from './webhook-pages';
import { attemptError } from './attempt-outcome';

type Schemas = components['schemas'];

export function toWebhookEndpoint(row: WebhookEndpoint, now = new Date()): Schemas['WebhookEndpoint'] {
  const rotating = row.previousSecret !== null && row.previousSecretExpiresAt !== null && row.previousSecretExpiresAt > now;
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    eventTypes: row.eventTypes as Schemas['WebhookEventType'][],
    enabled: row.enabled,
    disabledReason: row.enabled ? null : ((row.disabledReason ?? 'partner') as Schemas['WebhookEndpoint']['disabledReason']),
    failingSince: row.failingSince?.toISOString() ?? null,
    previousSecretExpiresAt: rotating ? row.previousSecretExpiresAt!.toISOString() : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The stored (replayable) body of a write that shows a secret: `secret: null`; revealOnce adds it to the first answer. */
export function withHiddenSecret(row: WebhookEndpoint): Schemas['WebhookEndpointWithSecret'] {
  return { ...toWebhookEndpoint(row), secret: null };
}

export const revealSecret = (secret: string) => (stored: Schemas['WebhookEndpointWithSecret']) => ({ ...stored, secret });

export function toWebhookDelivery(row: DeliveryRow): Schemas['WebhookDelivery'] {
  return {
    id: row.id,
    eventId: row.eventId,
    eventType: row.event.type,
    status: row.status as Schemas['WebhookDelivery']['status'],
    attempts: row.attempts.map((attempt) => toWebhookAttempt(attempt)),
    attemptCount: row.attemptCount,
    nextAttemptAt: row.nextAttemptAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

/** An attempt not completed (in progress, or interrupted) reads with `responseStatus` null, `latencyMs` 0 and its state's `error`. */
export function toWebhookAttempt(attempt: AttemptView, now = new Date()): Schemas['WebhookAttempt'] {
  return {
    attemptedAt: attempt.attemptedAt.toISOString(),
    responseStatus: attempt.responseStatus,
    latencyMs: attempt.latencyMs,
    error: attemptError(attempt, now),
  };
}
