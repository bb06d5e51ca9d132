/** The event catalogue of openapi/partner.yaml (`webhooks`, schema WebhookEventType). */
import type { components } from '../generated/partner-api';

export type EventType = components['schemas']['WebhookEventType'];

export const EVENT_TYPES: readonly EventType[] = [
  'rental_insurance.status_changed',
  'rental_insurance.signature_changed',
  'rental_insurance.comment_added',
  'rental_insurance.contract_reissued',
  'rental_insurance.documents_attached',
  'statement_entry.created',
];

/** Sent only by POST /v1/webhook-endpoints/{endpointId}/test, to that endpoint; not in the feed. */
export const TEST_EVENT_TYPE = 'webhook.test';

/** The version of the document that describes the events' `data` (its `info.version`). */
export const EVENT_API_VERSION = '2.0.0';
