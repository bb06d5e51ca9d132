/** @rental-guarantee/partner-client: the typed client of the Rental Guarantee Partner API. */
export { createPartnerClient, type PartnerClient, type PartnerClientOptions } from './client.js';
export {
  type ErrorCode,
  type KnownErrorCode,
  PartnerApiError,
  PartnerAuthError,
  PartnerClientError,
  PartnerNetworkError,
  UnknownEtagError,
} from './errors.js';
export type { ApiResult, CallOptions, PreconditionedWriteOptions, WriteOptions } from './results.js';
export type { DeprecationHandler, DeprecationNotice } from './deprecation.js';
export { DEFAULT_RETRY, type RetryOptions } from './retry-policy.js';
export type { FetchLike } from './transport.js';
export type {
  HistoryEntry,
  ListQuery,
  RentalInsurance,
  RentalInsuranceCreate,
  RentalInsurancePage,
  RentalInsurancePatch,
  RentalInsuranceStatus,
  SandboxClock,
  SandboxClockAdvance,
  Signature,
} from './rental-insurances.js';
export type { CoTenantCreate, CoTenantPatch } from './co-tenants.js';
export type { AttachOptions, DocumentInfo, DocumentPage, DocumentSource, DownloadedDocument } from './documents.js';
export type { Balance, DailySummary, DateRange, StatementEntryPage, StatementQuery } from './financial.js';
export type { components, operations, paths } from './generated/partner-api.js';
export {
  DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  verifyWebhook,
  WebhookVerificationError,
  type VerifyWebhookOptions,
  type WebhookHeaders,
  type WebhookRefusal,
} from './webhooks.js';
export * from './generated/webhook-events.js';
