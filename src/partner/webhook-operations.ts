/** Webhook endpoints, their deliveries, and the event feed (issue 14). */
import { halPage, pageLink, pageRequest } from '../http/paging';

import { revealSecret, toWebhookAttempt, toWebhookDelivery, toWebhookEndpoint, withHiddenSecret } from '../webhooks/webhook-mapper';
import type { components } from '../generated/partner-api';
import { defineOperation } from './partner-work';

const FEED_PAGE_SIZE = 50;

export const webhookOperations = [
  defineOperation('listWebhookEndpoints', {
    handler: async ({ query }, work, request) => {
      const page = pageRequest(query, request);
      const { rows, total } = await work.webhooks.list(page);
      return {
        status: 200,
        body: halPage(
          request,
          'webhookEndpoints',
          rows.map((row) => toWebhookEndpoint(row)),
          total,
          page,
        ),
      };
    },
  }),
  defineOperation('createWebhookEndpoint', {
    checkBefore: ({ body }, work) => work.webhooks.checkUrl(body.url),
    handler: async ({ body }, work) => {
      const { row, secret } = await work.webhooks.create(body);
      return {
        status: 201,
        body: withHiddenSecret(row),
        version: row.version,
        location: `/v1/webhook-endpoints/${row.id}`,
        revealOnce: revealSecret(secret),
      };
    },
  }),
  defineOperation('getWebhookEndpoint', {
    handler: async ({ params }, work) => {
      const row = await work.webhooks.find(params.endpointId);
      return { status: 200, body: toWebhookEndpoint(row), version: row.version };
    },
  }),
  defineOperation('patchWebhookEndpoint', {
    checkBefore: async ({ body }, work) => {
      if (body.url !== undefined) await work.webhooks.checkUrl(body.url);
    },
    precondition: ({ params }, work) => work.webhooks.lock(params.endpointId),
    handler: async ({ body, current }, work) => {
      const row = await work.webhooks.patch(current, body);
      return { status: 200, body: toWebhookEndpoint(row), version: row.version };
    },
  }),
  defineOperation('deleteWebhookEndpoint', {
    handler: async ({ params }, work) => {
      await work.webhooks.remove(params.endpointId);
      return { status: 204, body: undefined };
    },
  }),
  defineOperation('rotateWebhookEndpointSecret', {
    handler: async ({ params }, work) => {
      const { row, secret } = await work.webhooks.rotate(params.endpointId);
      return { status: 200, body: withHiddenSecret(row), version: row.version, revealOnce: revealSecret(secret) };
    },
  }),
  defineOperation('sendWebhookTest', {
    handler: async ({ params }, work) => ({ status: 202, body: toWebhookDelivery(await work.webhooks.sendTest(params.endpointId)) }),
  }),
  defineOperation('listWebhookDeliveries', {
    handler: async ({ params, query }, work, request) => {
      const page = pageRequest(query, request);
      const { rows, total } = await work.webhooks.deliveries(params.endpointId, page);
      return { status: 200, body: halPage(request, 'webhookDeliveries', rows.map(toWebhookDelivery), total, page) };
    },
  }),
  defineOperation('listWebhookDeliveryAttempts', {
    handler: async ({ params, query }, work, request) => {
      const page = pageRequest(query, request);
      const { rows, total } = await work.webhooks.attempts(params.endpointId, params.deliveryId, page);
      return {
        status: 200,
        body: halPage(
          request,
          'webhookAttempts',
          rows.map((attempt) => toWebhookAttempt(attempt)),
          total,
          page,
        ),
      };
    },
  }),
  defineOperation('redeliverWebhook', {
    handler: async ({ params }, work) => ({
      status: 202,
      body: toWebhookDelivery(await work.webhooks.redeliver(params.endpointId, params.deliveryId)),
    }),
  }),
  defineOperation('redeliverFailedWebhooks', {
    handler: async ({ params, body }, work) => ({ status: 202, body: await work.webhooks.redeliverFailed(params.endpointId, body) }),
  }),
  defineOperation('listEvents', {
    handler: async ({ query }, work, request) => {
      const limit = query.limit ?? FEED_PAGE_SIZE;
      const events = await work.events.read({
        limit,
        ...(request.list?.bytes !== undefined ? { maxBytes: request.list.bytes } : {}),
        ...(query.after !== undefined ? { after: query.after } : {}),
        ...(query.type ? { types: query.type } : {}),
        ...(query.occurredFrom ? { occurredFrom: query.occurredFrom } : {}),
        ...(query.occurredBefore ? { occurredBefore: query.occurredBefore } : {}),
      });
      const next = events.length > 0 ? events[events.length - 1]!.cursor : query.after;
      const link = (after: string | undefined) => pageLink(request, { after, limit });
      return {
        status: 200,
        body: { _embedded: { events: events as components['schemas']['Event'][] }, _links: { self: link(query.after), next: link(next) } },
      };
    },
  }),
];
