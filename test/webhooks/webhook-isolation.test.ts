/**
 * Every operation on a webhook endpoint is scoped to the token's agency: another agency's endpoint
 * id is answered exactly like a missing one (404, nothing written), tokens need
 * `ri:webhooks:manage` (or `ri:events:read` for the feed), and no token is 401.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { newKey } from '../support/factories';
import { useTestApp } from '../support/test-app';
import { WEBHOOK_OPERATIONS } from '../support/webhook-operations';
import { ENDPOINTS, EVENTS, webhookClient } from './webhook-support';

const world = useTestApp({ SCHEDULER_INTERVAL_MS: '0' }, { agencies: 2 });
const hooksA = webhookClient(world, () => world.agencies[0]!);

interface Call {
  operationId: string;
  method: 'get' | 'post' | 'patch' | 'delete';
  path: (endpointId: string, deliveryId: string) => string;
  body?: unknown;
  ifMatch?: boolean;
  scope: string;
}

const CALLS: Call[] = [
  { operationId: 'listWebhookEndpoints', method: 'get', path: () => ENDPOINTS, scope: 'ri:webhooks:manage' },
  {
    operationId: 'createWebhookEndpoint',
    method: 'post',
    path: () => ENDPOINTS,
    body: { url: 'http://127.0.0.1:9/hooks', eventTypes: ['statement_entry.created'] },
    scope: 'ri:webhooks:manage',
  },
  { operationId: 'getWebhookEndpoint', method: 'get', path: (e) => `${ENDPOINTS}/${e}`, scope: 'ri:webhooks:manage' },
  {
    operationId: 'patchWebhookEndpoint',
    method: 'patch',
    path: (e) => `${ENDPOINTS}/${e}`,
    body: { description: 'x' },
    ifMatch: true,
    scope: 'ri:webhooks:manage',
  },
  { operationId: 'deleteWebhookEndpoint', method: 'delete', path: (e) => `${ENDPOINTS}/${e}`, scope: 'ri:webhooks:manage' },
  { operationId: 'rotateWebhookEndpointSecret', method: 'post', path: (e) => `${ENDPOINTS}/${e}/rotate-secret`, scope: 'ri:webhooks:manage' },
  { operationId: 'sendWebhookTest', method: 'post', path: (e) => `${ENDPOINTS}/${e}/test`, scope: 'ri:webhooks:manage' },
  { operationId: 'listWebhookDeliveries', method: 'get', path: (e) => `${ENDPOINTS}/${e}/deliveries`, scope: 'ri:webhooks:manage' },
  {
    operationId: 'listWebhookDeliveryAttempts',
    method: 'get',
    path: (e, d) => `${ENDPOINTS}/${e}/deliveries/${d}/attempts`,
    scope: 'ri:webhooks:manage',
  },
  {
    operationId: 'redeliverWebhook',
    method: 'post',
    path: (e, d) => `${ENDPOINTS}/${e}/deliveries/${d}/redeliver`,
    scope: 'ri:webhooks:manage',
  },
  {
    operationId: 'redeliverFailedWebhooks',
    method: 'post',
    path: (e) => `${ENDPOINTS}/${e}/redeliver-failed`,
    body: { since: '2026-01-01T00:00:00Z' },
    scope: 'ri:webhooks:manage',
  },
  { operationId: 'listEvents', method: 'get', path: () => EVENTS, scope: 'ri:events:read' },
];

function send(call: Call, auth: Record<string, string>, endpointId: string, deliveryId: string) {
  let built = request(world.app)[call.method](call.path(endpointId, deliveryId)).set(auth);
  if (call.method !== 'get') built = built.set('Idempotency-Key', newKey());
  if (call.ifMatch) built = built.set('If-Match', 'W/"1"');
  if (call.body === undefined) return built;
  return built.set('Content-Type', call.method === 'patch' ? 'application/merge-patch+json' : 'application/json').send(JSON.stringify(call.body));
}

test('every webhook operation of the document is listed here', () => {
  expect(CALLS.map((call) => call.operationId).sort()).toEqual([...WEBHOOK_OPERATIONS].sort());
});

describe.each(CALLS.filter((call) => call.path('E', 'D').includes('E')).map((call) => [call.operationId, call] as const))(
  "%s on another agency's endpoint",
  (_id, call) => {
    test('is 404 exactly like a missing id, and writes nothing', async () => {
      const endpoint = await hooksA.register('http://127.0.0.1:9/hooks', ['statement_entry.created']);
      const sent = await hooksA.test(endpoint.id);
      const deliveryId = sent.body.id as string;
      const before = await world.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
      const deliveriesBefore = await world.db.webhookDelivery.count();
      const foreign = await send(call, world.agencies[1]!.auth, endpoint.id, deliveryId);
      const missing = await send(call, world.agencies[1]!.auth, randomUUID(), randomUUID());
      expect(foreign.status).toBe(404);
      expect({ code: foreign.body.code, message: foreign.body.message }).toEqual({ code: missing.body.code, message: missing.body.message });
      expect(await world.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).toEqual(before);
      expect(await world.db.webhookDelivery.count()).toBe(deliveriesBefore);
      const own = await send(call, world.agencies[0]!.auth, endpoint.id, deliveryId);
      expect(own.status).toBeLessThan(300);
    });
  },
);

describe.each(CALLS.map((call) => [call.operationId, call] as const))('%s without the scope or a token', (_id, call) => {
  test('is 403 with a token lacking the scope, 401 without a token', async () => {
    const others = ['ri:rental-insurances:read', 'ri:rental-insurances:write', 'ri:financial:read', 'ri:webhooks:manage', 'ri:events:read'];
    const narrow = await world.newAgency({ scopes: others.filter((scope) => scope !== call.scope) });
    const id = randomUUID();
    expect((await send(call, narrow.auth, id, id)).status).toBe(403);
    expect((await send(call, {}, id, id)).status).toBe(401);
  });
});
