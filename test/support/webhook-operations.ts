/**
 * Operations on webhook endpoints and the event feed (issue 14): their requests name a webhook
 * endpoint, not a guarantee, so they are not in OPERATIONS (operation-table.ts); their scopes,
 * 401/403, foreign-id 404s and idempotency are tested in test/webhooks/ (webhook-isolation.test.ts
 * and the others), and their hostile bodies in webhook-hostile-bodies.test.ts.
 *
 * Their writes are also entries of the operation table's shape (WEBHOOK_WRITES), so that the
 * table-driven header suite (test/hostile/headers-auth-and-preconditions.test.ts) sends them too,
 * at the endpoint and delivery that `webhookTarget` makes. Like the table, they are derived from
 * the document (operation-entry.ts); only the valid bodies are written here.
 */
import request from 'supertest';
import { documentOperations } from './contract-rules';
import { newKey } from './factories';
import { inputProblems, operationEntry, type OperationEntry, type ValidInput } from './operation-entry';
import { API, type AppTarget, type Caller } from './partner-api';

export const WEBHOOK_OPERATIONS = [
  'listWebhookEndpoints',
  'createWebhookEndpoint',
  'getWebhookEndpoint',
  'patchWebhookEndpoint',
  'deleteWebhookEndpoint',
  'rotateWebhookEndpointSecret',
  'sendWebhookTest',
  'listWebhookDeliveries',
  'listWebhookDeliveryAttempts',
  'redeliverWebhook',
  'redeliverFailedWebhooks',
  'listEvents',
];

/** An endpoint of the agency, its current ETag, and one of its deliveries. */
export interface WebhookTarget {
  endpointId: string;
  etag: string;
  deliveryId: string;
}

/** `path` with {endpointId} and {deliveryId} filled in from `webhook`; unchanged when it names neither. */
export function withWebhookIds(path: string, webhook: WebhookTarget | undefined, encode: (value: string) => string): string {
  if (!path.includes('{endpointId}')) return path;
  if (!webhook) throw new Error(`${path}: the target has no webhook endpoint`);
  return path.replace('{endpointId}', encode(webhook.endpointId)).replace('{deliveryId}', encode(webhook.deliveryId));
}

const ENDPOINTS = '/v1/webhook-endpoints';
const HOOK_URL = 'http://127.0.0.1:9/hooks';

/** Valid bodies of the webhook writes that take one. */
const WEBHOOK_INPUTS: Record<string, ValidInput> = {
  createWebhookEndpoint: { body: () => ({ url: HOOK_URL, eventTypes: ['statement_entry.created'] }) },
  patchWebhookEndpoint: { body: () => ({ description: 'ERP webhooks' }) },
  redeliverFailedWebhooks: { body: () => ({ since: '2026-01-01T00:00:00Z' }) },
};

const webhookWrites = documentOperations.filter((documented) => WEBHOOK_OPERATIONS.includes(documented.operationId) && documented.method !== 'GET');

export const WEBHOOK_WRITES: OperationEntry[] = webhookWrites.map((documented) => operationEntry(documented, WEBHOOK_INPUTS[documented.operationId]));

/** Webhook writes that WEBHOOK_INPUTS leaves without a valid request, and inputs of writes the document no longer has. */
export const webhookInputProblems = (): string[] => inputProblems(webhookWrites, WEBHOOK_INPUTS);

/**
 * Registers an endpoint for `agency` (sandbox: a loopback URL is allowed) and sends it a test event,
 * whose delivery stays pending in an app without a delivery worker; throws unless both succeed.
 */
export async function webhookTarget(target: AppTarget, agency: Caller): Promise<WebhookTarget> {
  const registered = await request(target.app)
    .post(`${API}${ENDPOINTS}`)
    .set(agency.auth)
    .set('Idempotency-Key', newKey())
    .set('Content-Type', 'application/json')
    .send(JSON.stringify({ url: HOOK_URL, eventTypes: ['statement_entry.created'] }));
  if (registered.status !== 201) throw new Error(`webhookTarget: register answered ${registered.status} ${registered.text}`);
  const endpointId = registered.body.id as string;
  const sent = await request(target.app).post(`${API}${ENDPOINTS}/${endpointId}/test`).set(agency.auth).set('Idempotency-Key', newKey());
  if (sent.status !== 202) throw new Error(`webhookTarget: test event answered ${sent.status} ${sent.text}`);
  return { endpointId, etag: registered.headers['etag'] as string, deliveryId: sent.body.id as string };
}
