/**
 * What a partner operation's handler works with: the company's guarantees and ledger, scoped by
 * the principal the pipeline resolved from the token, on the request's unit of work (a write's
 * transaction and the rows it holds, database/unit-of-work.ts; for a read, its database handle). The registry of the partner contract's operations is typed by
 * the generated `operations` of openapi/partner.yaml.
 */
import type { Principal } from '../auth/principal';
import type { UnitOfWork } from '../database/unit-of-work';
import type { ScheduledJob } from '../scheduler/job';
import { advanceClock, type ClockAdvance, type ClockRequest } from '../sandbox/time-travel';
import { companyLedger, type CompanyLedger } from '../financial/company-ledger';
import type { operations } from '../generated/partner-api';
import { companyGuarantees, type CompanyGuarantees, type GuaranteeRules } from '../guarantees/company-guarantees';
import { operationRegistry } from '../http/operation-registry';
import { readFeed, type FeedQuery } from '../events/event-feed';
import { readRequestLog, type RequestLogQuery } from '../request-log/request-log-reader';
import { companyWebhooks, type CompanyWebhooks, type WebhookRules } from '../webhooks/company-webhooks';
import { companyDocuments, type CompanyDocuments } from '../guarantees/documents/company-documents';
import type { DocumentServices } from '../guarantees/documents/document-services';

export interface PartnerWork {
  guarantees: CompanyGuarantees;
  /** The company's documents: attach, list, download (issue 35). */
  documents: CompanyDocuments;
  ledger: CompanyLedger;
  webhooks: CompanyWebhooks;
  events: { read: (query: FeedQuery) => ReturnType<typeof readFeed> };
  /** The agency's own request log (GET /v1/request-log). */
  requestLog: { read: (query: RequestLogQuery) => ReturnType<typeof readRequestLog> };
  /** Sandbox only (production has no such operation): one guarantee's time travel, in the write's unit of work. */
  sandbox: { advanceClock: (id: bigint, request: ClockRequest) => Promise<ClockAdvance> };
}

/** What each request's handler works with, under this deployment's rules. */
export function partnerWork(
  rules: Omit<GuaranteeRules, 'contracts'>,
  webhookRules: WebhookRules,
  documents: DocumentServices,
  lifecycleJobs: readonly ScheduledJob[] = [],
) {
  return (unit: UnitOfWork, principal: Principal): PartnerWork => {
    // The partner's writes are signed by its credential, as a service account.
    const actor = { name: principal.displayName, serviceAccount: true };
    const { companyId } = principal;
    return {
      guarantees: companyGuarantees(unit, companyId, actor, { ...rules, contracts: documents.contracts }),
      documents: companyDocuments(unit, companyId, actor, documents),
      ledger: companyLedger(unit.db, companyId),
      webhooks: companyWebhooks(unit, principal, webhookRules),
      events: { read: (query) => readFeed(unit.db, companyId, principal.scopes, query) },
      requestLog: { read: (query) => readRequestLog(unit.db, companyId, query) },
      sandbox: { advanceClock: (id, request) => advanceClock(unit, lifecycleJobs, companyId, id, request) },
    };
  };
}

export const { defineOperation, definePublicOperation, definePreparedPage } = operationRegistry<operations, PartnerWork>();
