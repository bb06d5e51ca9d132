/**
 * What a partner operation's handler works with: the company's guarantees and ledger, scoped by
 * the principal the pipeline resolved from the token, on the request's database handle (the
 * write's transaction for writes). The registry of the partner contract's operations is typed by
 * the generated `operations` of openapi/partner.yaml.
 */
import type { Principal } from '../auth/principal';
import type { Queryable } from '../database/prisma-client';
import { companyLedger, type CompanyLedger } from '../financial/company-ledger';
import type { operations } from '../generated/partner-api';
import { companyGuarantees, type CompanyGuarantees, type GuaranteeRules } from '../guarantees/company-guarantees';
import { operationRegistry } from '../http/operation-registry';
import { readFeed, type FeedQuery } from '../events/event-feed';
import { companyWebhooks, type CompanyWebhooks, type WebhookRules } from '../webhooks/company-webhooks';

export interface PartnerWork {
  guarantees: CompanyGuarantees;
  ledger: CompanyLedger;
  webhooks: CompanyWebhooks;
  events: { read: (query: FeedQuery) => ReturnType<typeof readFeed> };
}

/** The unit of work of each request, under this deployment's rules. */
export function partnerWork(rules: GuaranteeRules, webhookRules: WebhookRules) {
  return (db: Queryable, principal: Principal): PartnerWork => {
    // The partner's writes are signed by its credential, as a service account.
    const actor = { name: principal.displayName, serviceAccount: true };
    const { companyId } = principal;
    return {
      guarantees: companyGuarantees(db, companyId, actor, rules),
      ledger: companyLedger(db, companyId),
      webhooks: companyWebhooks(db, principal, webhookRules),
      events: { read: (query) => readFeed(db, companyId, principal.scopes, query) },
    };
  };
}

export const { defineOperation, definePublicOperation } = operationRegistry<operations, PartnerWork>();
