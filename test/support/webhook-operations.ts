/**
 * Operations on webhook endpoints and the event feed (issue 14): their requests name a webhook
 * endpoint, not a guarantee, so they are not in OPERATIONS (operation-table.ts); their scopes,
 * 401/403, foreign-id 404s and idempotency are tested in test/webhooks/ (webhook-isolation.test.ts
 * and the others), and their hostile bodies in webhook-hostile-bodies.test.ts.
 *
 * Their writes are also entries of the operation table's shape (WEBHOOK_WRITES), so that the
 * table-driven header suite (test/hostile/headers-auth-and-preconditions.test.ts) sends them too,
 * at the endpoint and delivery that `webhookTarget` makes. Whether a write needs If-Match is read
 * from the document, not written here.
 */
import request from 'supertest';
import { documentOperation } from './contract-rules';
import { newKey } from './factories';
import type { OperationEntry } from './operation-table';
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
const write = (operationId: string, method: 'POST' | 'PATCH' | 'DELETE', path: string, body?: () => unknown): OperationEntry => ({
  operationId,
  method,
  path,
  access: 'webhooks',
  idPath: false,
  coTenantPath: false,
  ...(body ? { mediaType: method === 'PATCH' ? 'application/merge-patch+json' : 'application/json', body } : {}),
  ifMatch: documentOperation(operationId).parameterNames.includes('If-Match'),
});

export const WEBHOOK_WRITES: OperationEntry[] = [
  write('createWebhookEndpoint', 'POST', ENDPOINTS, () => ({ url: 'http://127.0.0.1:9/hooks', eventTypes: ['statement_entry.created'] })),
  write('patchWebhookEndpoint', 'PATCH', `${ENDPOINTS}/{endpointId}`, () => ({ description: 'ERP webhooks' })),
  write('deleteWebhookEndpoint', 'DELETE', `${ENDPOINTS}/{endpointId}`),
  write('rotateWebhookEndpointSecret', 'POST', `${ENDPOINTS}/{endpointId}/rotate-secret`),
  write('sendWebhookTest', 'POST', `${ENDPOINTS}/{endpointId}/test`),
  write('redeliverWebhook', 'POST', `${ENDPOINTS}/{endpointId}/deliveries/{deliveryId}/redeliver`),
  write('redeliverFailedWebhooks', 'POST', `${ENDPOINTS}/{endpointId}/redeliver-failed`, () => ({ since: '2026-01-01T00:00:00Z' })),
];

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
    .send(JSON.stringify({ url: 'http://127.0.0.1:9/hooks', eventTypes: ['statement_entry.created'] }));
  if (registered.status !== 201) throw new Error(`webhookTarget: register answered ${registered.status} ${registered.text}`);
  const endpointId = registered.body.id as string;
  const sent = await request(target.app).post(`${API}${ENDPOINTS}/${endpointId}/test`).set(agency.auth).set('Idempotency-Key', newKey());
  if (sent.status !== 202) throw new Error(`webhookTarget: test event answered ${sent.status} ${sent.text}`);
  return { endpointId, etag: registered.headers['etag'] as string, deliveryId: sent.body.id as string };
}
