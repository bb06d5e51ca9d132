/**
 * Every operation of openapi/partner.yaml, with what a test needs to send a VALID request to it.
 * Suites that must cover every operation iterate OPERATIONS, which is derived from the document
 * (operation-entry.ts): a new operation joins them without being written here. Only what the
 * document cannot say is: VALID_INPUTS, and `inputProblems()` lets a suite fail, naming the
 * operation, when an operation needs an input that is missing there, or an input outlives its
 * operation.
 */
import { randomUUID } from 'node:crypto';
import { documentOperations, type DocumentOperation } from './contract-rules';
import { WEBHOOK_OPERATIONS } from './webhook-operations';
import { guaranteeBody, nextCpf } from './factories';
import { inputProblems as problemsOf, operationEntry, type OperationEntry, type ValidInput } from './operation-entry';
import { todayInSaoPaulo } from '../../src/database/column-values';
import { addDays } from '../../src/financial/date-range';

export type { Access, OperationEntry } from './operation-entry';

/**
 * Operations tested in a suite of their own like the webhook operations: the request log
 * (test/request-log/: every field, filters, cursor, 400s, isolation, 401/403), and the documents,
 * whose bodies are multipart and answers bytes (test/documents/).
 */
export const OWN_SUITES = [
  'listRequestLog',
  // Documents (multipart uploads, byte downloads): test/documents/ (every refusal, isolation, replays, both stores).
  'attachRentalInsuranceDocuments',
  'listRentalInsuranceDocuments',
  'getRentalInsuranceDocument',
];

const monthAgo = () => addDays(todayInSaoPaulo(), -30);
const dateRange = (): Array<[string, string]> => [
  ['startDate', monthAgo()],
  ['endDate', todayInSaoPaulo()],
];

/**
 * Valid inputs the document cannot give: a body for every operation that takes one, and values for
 * the query parameters it requires. Every other operation is answered 2xx without any.
 */
export const VALID_INPUTS: Record<string, ValidInput> = {
  createRentalInsurance: { body: () => guaranteeBody() },
  patchRentalInsurance: { body: () => ({ externalId: `CHANGED-${randomUUID().slice(0, 8)}` }) },
  createRentalInsuranceComment: { body: () => ({ comment: 'Tenant asked about the start date.' }) },
  // Sandbox only (the test worlds run the sandbox); test/sandbox/time-travel-production.test.ts covers production.
  advanceRentalInsuranceClock: { body: () => ({ by: 'PT1S' }) },
  addCoTenant: { body: () => ({ cpfCnpj: nextCpf(), name: 'Joana Prado', email: 'joana@example.com' }) },
  patchCoTenant: { body: () => ({ name: `Renamed ${randomUUID().slice(0, 6)}` }) },
  // startDate and endDate are required; the last 30 days are a range the service accepts.
  listDailySummaries: { query: dateRange },
  listStatementEntries: { query: dateRange },
};

/** The operations of the document this table covers: the webhook ones and OWN_SUITES are tested elsewhere. */
export const TABLE_OPERATIONS: DocumentOperation[] = documentOperations.filter(
  (documented) => !WEBHOOK_OPERATIONS.includes(documented.operationId) && !OWN_SUITES.includes(documented.operationId),
);

export const OPERATIONS: OperationEntry[] = TABLE_OPERATIONS.map((documented) => operationEntry(documented, VALID_INPUTS[documented.operationId]));

/** Operations that VALID_INPUTS leaves without a valid request, and inputs of operations the table no longer has. */
export const inputProblems = (): string[] => problemsOf(TABLE_OPERATIONS, VALID_INPUTS);
