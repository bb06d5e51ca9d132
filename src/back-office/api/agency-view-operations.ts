/**
 * The director's view of their own agency (issue 37): its guarantees with history, signatures and
 * documents (listed and downloaded),
 * its request log, its webhook endpoints and deliveries (ops:agency:read), and redelivery
 * (ops:agency:webhooks). The agency is the caller's company; another agency's resource is 404.
 */
import { parseDateTime } from '../../validation/time-values';
import { toRentalInsurance, toHistoryEntry, guaranteeId } from '../../guarantees/guarantee-mapper';
import { documentId } from '../../guarantees/documents/document-id';
import { toDocument } from '../../guarantees/guarantee-mapper';
import { rentalInsuranceNotFound } from '../../errors';
import { halPage, pageLink, pageRequest } from '../../http/paging';
import { requestLogPage } from '../../request-log/request-log-page';
import { readRequestLog } from '../../request-log/request-log-reader';
import { toWebhookDelivery, toWebhookEndpoint } from '../../webhooks/webhook-mapper';
import { deliveryPage } from '../../webhooks/webhook-pages';
import type { WebhookEndpoint } from '../../generated/prisma/client';
import { defineOperation, type BackOfficeWork } from './back-office-work';

const READ = 'ops:agency:read';
const REDELIVER = 'ops:agency:webhooks';

const agencyOf = (work: BackOfficeWork, scope = READ) => work.agency(work.operator('director', scope).companyId);

const withCompany = (row: WebhookEndpoint) => {
  const { previousSecretExpiresAt: _rotation, ...view } = toWebhookEndpoint(row);
  return { ...view, companyId: row.companyId };
};

export const agencyViewOperations = [
  defineOperation('listAgencyRentalInsurances', {
    handler: async ({ query }, work, request) => {
      const page = pageRequest(query, request);
      const { rows, total } = await agencyOf(work).guarantees.list({ statuses: query.status ?? [] }, page);
      return { status: 200, body: halPage(request, 'rentalInsurances', rows.map(toRentalInsurance), total, page) };
    },
  }),
  defineOperation('getAgencyRentalInsurance', {
    handler: async ({ params }, work) => {
      const row = await agencyOf(work).guarantees.find(guaranteeId(params.id));
      if (!row) throw rentalInsuranceNotFound();
      return { status: 200, body: toRentalInsurance(row), version: row.version };
    },
  }),
  defineOperation('listAgencyRentalInsuranceHistory', {
    handler: async ({ params, query }, work, request) => {
      const page = pageRequest(query, request);
      const { rows, total } = await agencyOf(work).guarantees.history(guaranteeId(params.id), page);
      return { status: 200, body: halPage(request, 'historyEntries', rows.map(toHistoryEntry), total, page) };
    },
  }),
  defineOperation('listAgencyRentalInsuranceSignatures', {
    handler: async ({ params, query }, work, request) => {
      const page = pageRequest(query, request);
      const { rows, total } = await agencyOf(work).guarantees.signatures(guaranteeId(params.id), page);
      return { status: 200, body: halPage(request, 'signatures', rows, total, page) };
    },
  }),
  defineOperation('listAgencyRentalInsuranceDocuments', {
    handler: async ({ params, query }, work, request) => {
      const page = pageRequest(query, request);
      const { rows, total } = await agencyOf(work).documents.page(guaranteeId(params.id), page);
      return { status: 200, body: halPage(request, 'documents', rows.map(toDocument), total, page) };
    },
  }),
  // The partner's download, scoped to the director's agency: the same headers, 304 and streaming.
  defineOperation('getAgencyRentalInsuranceDocument', {
    handler: async ({ params }, work) => agencyOf(work).documents.download(guaranteeId(params.id), documentId(params.documentId)),
  }),
  defineOperation('listOwnRequestLog', {
    handler: async ({ query }, work, request) => {
      const companyId = work.operator('director', READ).companyId;
      const { from, to, ...filters } = query;
      return {
        status: 200,
        body: await requestLogPage(
          { ...filters, ...instants({ from, to }) },
          (read) => readRequestLog(work.db, companyId, read),
          (paging) => pageLink(request, paging),
        ),
      };
    },
  }),
  defineOperation('listOwnWebhookEndpoints', {
    handler: async ({ query }, work, request) => {
      const page = pageRequest(query, request);
      const { rows, total } = await agencyOf(work).webhooks.list(page);
      return { status: 200, body: halPage(request, 'webhookEndpoints', rows.map(withCompany), total, page) };
    },
  }),
  defineOperation('listOwnWebhookDeliveries', {
    handler: async ({ params, query }, work, request) => {
      const page = pageRequest(query, request);
      const endpoint = await agencyOf(work).webhooks.find(params.endpointId);
      const { rows, total } = await deliveryPage(work.db, { endpointId: endpoint.id, companyId: endpoint.companyId, status: query.status }, page);
      return { status: 200, body: halPage(request, 'webhookDeliveries', rows.map(toWebhookDelivery), total, page) };
    },
  }),
  defineOperation('redeliverOwnWebhook', {
    handler: async ({ params }, work) => ({
      status: 202,
      body: toWebhookDelivery(await agencyOf(work, REDELIVER).webhooks.redeliver(params.endpointId, params.deliveryId)),
    }),
  }),
];

/**
 * The window's bounds as instants, read by the one parser the contract's `date-time` format is
 * checked with (leap seconds and years 0001-9999 included), never by `new Date`, which refuses some.
 */
function instants(window: { from?: string; to?: string }): { from?: Date; to?: Date } {
  const read = (text: string | undefined) => (text === undefined ? undefined : (parseDateTime(text) ?? undefined));
  const from = read(window.from);
  const to = read(window.to);
  return { ...(from ? { from } : {}), ...(to ? { to } : {}) };
}
