/** Back office: agencies' webhook endpoints, deliveries and attempts, and disabling an endpoint (staff, ops:credentials:admin). */
import { halPage, pageRequest } from '../../http/paging';
import { agencyEndpoints, deliveryAttempts, disableEndpoint, endpointDeliveries } from '../../webhooks/endpoint-administration';
import { toWebhookAttempt, toWebhookDelivery, toWebhookEndpoint } from '../../webhooks/webhook-mapper';
import type { WebhookEndpoint } from '../../generated/prisma/client';
import { defineOperation, SCOPE } from './back-office-work';

const withCompany = (row: WebhookEndpoint) => {
  const { previousSecretExpiresAt: _rotation, ...view } = toWebhookEndpoint(row);
  return { ...view, companyId: row.companyId };
};

export const webhookOperations = [
  defineOperation('listAgencyWebhookEndpoints', {
    handler: async ({ query }, work, request) => {
      work.operator('staff', SCOPE.admin);
      const page = pageRequest(query, request);
      const { rows, total } = await agencyEndpoints(work.db, query.companyId, page);
      return { status: 200, body: halPage(request, 'webhookEndpoints', rows.map(withCompany), total, page) };
    },
  }),
  defineOperation('listAgencyWebhookDeliveries', {
    handler: async ({ params, query }, work, request) => {
      work.operator('staff', SCOPE.admin);
      const page = pageRequest(query, request);
      const { rows, total } = await endpointDeliveries(work.db, params.endpointId, page);
      return { status: 200, body: halPage(request, 'webhookDeliveries', rows.map(toWebhookDelivery), total, page) };
    },
  }),
  defineOperation('listAgencyWebhookDeliveryAttempts', {
    handler: async ({ params, query }, work, request) => {
      work.operator('staff', SCOPE.admin);
      const page = pageRequest(query, request);
      const { rows, total } = await deliveryAttempts(work.db, params.endpointId, params.deliveryId, page);
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
  defineOperation('disableAgencyWebhookEndpoint', {
    handler: async ({ params }, work) => {
      const operator = work.operator('staff', SCOPE.admin);
      return { status: 200, body: withCompany(await disableEndpoint(work.db, params.endpointId, operator.audit)) };
    },
  }),
];
