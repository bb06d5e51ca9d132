/**
 * Every operation of openapi/partner.yaml, with what a test needs to send a VALID request to it.
 * Suites that must cover every operation iterate this table, and `missingFromTable()` lets them
 * fail when the document gains an operation that the table does not know yet.
 */
import { randomUUID } from 'node:crypto';
import { documentOperations } from './contract-rules';
import { WEBHOOK_OPERATIONS } from './webhook-operations';
import { guaranteeBody, nextCpf } from './factories';
import { todayInSaoPaulo } from '../../src/database/column-values';
import { addDays } from '../../src/financial/date-range';

/**
 * Operations whose requests name no guarantee, tested in a suite of their own like the webhook
 * operations: the request log (test/request-log/: every field, filters, cursor, 400s, isolation,
 * 401/403).
 */
export const OWN_SUITES = ['listRequestLog'];

/** `webhooks`: scope ri:webhooks:manage (the webhook writes of webhook-operations.ts). */
export type Access = 'public' | 'read' | 'write' | 'financial' | 'webhooks';

export interface OperationEntry {
  operationId: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path template as in the document. */
  path: string;
  access: Access;
  /** The path names a guarantee ({id}). */
  idPath: boolean;
  /** The path names a co-tenant ({cpfCnpj}). */
  coTenantPath: boolean;
  /** Media type of the request body, when the operation takes one. */
  mediaType?: 'application/json' | 'application/merge-patch+json';
  ifMatch: boolean;
  /** Query parameters of a valid request. */
  query?: () => Array<[string, string]>;
  /** Body of a valid request (parsed form). */
  body?: () => unknown;
}

const monthAgo = () => addDays(todayInSaoPaulo(), -30);
const dateRange = (): Array<[string, string]> => [
  ['startDate', monthAgo()],
  ['endDate', todayInSaoPaulo()],
];

export const OPERATIONS: OperationEntry[] = [
  {
    operationId: 'listRentalInsurances',
    method: 'GET',
    path: '/v1/rental-insurances',
    access: 'read',
    idPath: false,
    coTenantPath: false,
    ifMatch: false,
    query: () => [],
  },
  {
    operationId: 'createRentalInsurance',
    method: 'POST',
    path: '/v1/rental-insurances',
    access: 'write',
    idPath: false,
    coTenantPath: false,
    mediaType: 'application/json',
    ifMatch: false,
    body: () => guaranteeBody(),
  },
  {
    operationId: 'getRentalInsurance',
    method: 'GET',
    path: '/v1/rental-insurances/{id}',
    access: 'read',
    idPath: true,
    coTenantPath: false,
    ifMatch: false,
  },
  {
    operationId: 'patchRentalInsurance',
    method: 'PATCH',
    path: '/v1/rental-insurances/{id}',
    access: 'write',
    idPath: true,
    coTenantPath: false,
    mediaType: 'application/merge-patch+json',
    ifMatch: true,
    body: () => ({ externalId: `CHANGED-${randomUUID().slice(0, 8)}` }),
  },
  {
    operationId: 'listRentalInsuranceHistory',
    method: 'GET',
    path: '/v1/rental-insurances/{id}/history',
    access: 'read',
    idPath: true,
    coTenantPath: false,
    ifMatch: false,
  },
  {
    operationId: 'createRentalInsuranceComment',
    method: 'POST',
    path: '/v1/rental-insurances/{id}/comments',
    access: 'write',
    idPath: true,
    coTenantPath: false,
    mediaType: 'application/json',
    ifMatch: false,
    body: () => ({ comment: 'Tenant asked about the start date.' }),
  },
  {
    operationId: 'listRentalInsuranceSignatures',
    method: 'GET',
    path: '/v1/rental-insurances/{id}/signatures',
    access: 'read',
    idPath: true,
    coTenantPath: false,
    ifMatch: false,
  },
  {
    operationId: 'acceptRentalInsurance',
    method: 'POST',
    path: '/v1/rental-insurances/{id}/accept',
    access: 'write',
    idPath: true,
    coTenantPath: false,
    ifMatch: false,
  },
  {
    // Sandbox only (the test worlds run the sandbox); test/sandbox/time-travel-production.test.ts covers production.
    operationId: 'advanceRentalInsuranceClock',
    method: 'POST',
    path: '/v1/rental-insurances/{id}/advance-clock',
    access: 'write',
    idPath: true,
    coTenantPath: false,
    mediaType: 'application/json',
    ifMatch: false,
    body: () => ({ by: 'PT1S' }),
  },
  {
    operationId: 'refuseRentalInsurance',
    method: 'POST',
    path: '/v1/rental-insurances/{id}/refuse',
    access: 'write',
    idPath: true,
    coTenantPath: false,
    ifMatch: false,
  },
  {
    operationId: 'listCoTenants',
    method: 'GET',
    path: '/v1/rental-insurances/{id}/co-tenants',
    access: 'read',
    idPath: true,
    coTenantPath: false,
    ifMatch: false,
  },
  {
    operationId: 'addCoTenant',
    method: 'POST',
    path: '/v1/rental-insurances/{id}/co-tenants',
    access: 'write',
    idPath: true,
    coTenantPath: false,
    mediaType: 'application/json',
    ifMatch: true,
    body: () => ({ cpfCnpj: nextCpf(), name: 'Joana Prado', email: 'joana@example.com' }),
  },
  {
    operationId: 'patchCoTenant',
    method: 'PATCH',
    path: '/v1/rental-insurances/{id}/co-tenants/{cpfCnpj}',
    access: 'write',
    idPath: true,
    coTenantPath: true,
    mediaType: 'application/merge-patch+json',
    ifMatch: true,
    body: () => ({ name: `Renamed ${randomUUID().slice(0, 6)}` }),
  },
  {
    operationId: 'removeCoTenant',
    method: 'DELETE',
    path: '/v1/rental-insurances/{id}/co-tenants/{cpfCnpj}',
    access: 'write',
    idPath: true,
    coTenantPath: true,
    ifMatch: true,
  },
  {
    operationId: 'getFinancialBalance',
    method: 'GET',
    path: '/v1/financial/balance',
    access: 'financial',
    idPath: false,
    coTenantPath: false,
    ifMatch: false,
    query: () => [],
  },
  {
    operationId: 'listDailySummaries',
    method: 'GET',
    path: '/v1/financial/daily-summaries',
    access: 'financial',
    idPath: false,
    coTenantPath: false,
    ifMatch: false,
    query: dateRange,
  },
  {
    operationId: 'listStatementEntries',
    method: 'GET',
    path: '/v1/financial/statement-entries',
    access: 'financial',
    idPath: false,
    coTenantPath: false,
    ifMatch: false,
    query: dateRange,
  },
  { operationId: 'getOpenApiJson', method: 'GET', path: '/openapi.json', access: 'public', idPath: false, coTenantPath: false, ifMatch: false },
  { operationId: 'getOpenApiYaml', method: 'GET', path: '/openapi.yaml', access: 'public', idPath: false, coTenantPath: false, ifMatch: false },
  { operationId: 'getApiReference', method: 'GET', path: '/docs', access: 'public', idPath: false, coTenantPath: false, ifMatch: false },
];

/** Operations of the document that the table lacks, or whose method/path differ. */
export function missingFromTable(): string[] {
  return documentOperations
    .filter((documented) => !WEBHOOK_OPERATIONS.includes(documented.operationId) && !OWN_SUITES.includes(documented.operationId))
    .filter((documented) => {
      const entry = OPERATIONS.find((candidate) => candidate.operationId === documented.operationId);
      return !entry || entry.method !== documented.method || entry.path !== documented.path;
    })
    .map((documented) => `${documented.operationId} (${documented.method} ${documented.path})`);
}

/** Operations of the table that the document no longer has. */
export function unknownToDocument(): string[] {
  return OPERATIONS.filter((entry) => !documentOperations.some((documented) => documented.operationId === entry.operationId)).map(
    (entry) => entry.operationId,
  );
}
