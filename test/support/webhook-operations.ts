/**
 * Operations on webhook endpoints and the event feed (issue 14): their requests name a webhook
 * endpoint, not a guarantee, so they are not in this table; their scopes, 401/403, foreign-id
 * 404s and idempotency are tested in test/webhooks/ (webhook-isolation.test.ts and the others), and
 * their hostile bodies in webhook-hostile-bodies.test.ts.
 */
export const WEBHOOK_OPERATIONS = [
  'listWebhookEndpoints',
  'createWebhookEndpoint',
  'getWebhookEndpoint',
  'patchWebhookEndpoint',
  'deleteWebhookEndpoint',
  'rotateWebhookEndpointSecret',
  'sendWebhookTest',
  'listWebhookDeliveries',
  'redeliverWebhook',
  'listEvents',
];
