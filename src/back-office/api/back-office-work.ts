/**
 * What a back-office operation's handler works with. Staff reach every agency, so they work on
 * the request's unit of work itself (a write's transaction and the rows it holds,
 * database/unit-of-work.ts) with the caller as an operator; a director's reach is narrowed by the credential functions (directorReach). The
 * registry of openapi/back-office.yaml's operations is typed by its generated `operations`.
 */
import type { Environment } from '../../auth/opaque-secrets';
import type { Principal } from '../../auth/principal';
import type { Database, Queryable } from '../../database/prisma-client';
import { recordAudit, type NewAuditEntry } from '../../auth/audit-log';
import type { UnitOfWork } from '../../database/unit-of-work';
import type { operations } from '../../generated/back-office-api';
import { operationRegistry } from '../../http/operation-registry';
import { operatorOf, type Operator } from './operator';
import { companyGuarantees, type CompanyGuarantees } from '../../guarantees/company-guarantees';
import { companyWebhooks, type CompanyWebhooks, type WebhookRules } from '../../webhooks/company-webhooks';
import { staffMember } from '../../guarantees/transitions/review-service';
import type { DocumentServices } from '../../guarantees/documents/document-services';
import { companyDocuments, type CompanyDocuments } from '../../guarantees/documents/company-documents';

export interface BackOfficeWork {
  /** The process's document services (issue 35). */
  documents: DocumentServices;
  /** What the domain's writes run on; it writes what they append in the write's last statement. */
  unit: UnitOfWork;
  /** The unit's database handle (the write's transaction), for reads and plain statements. */
  db: Queryable;
  environment: Environment;
  /** Active partner credentials one agency may hold (CREDENTIALS_PER_AGENCY). */
  credentialsPerAgency: number;
  /** The caller as a staff member or a director; 403 when its credential is of another kind. */
  operator(kind: 'staff' | 'director', scope: string): Operator;
  /**
   * Issue 37: an audit entry written outside the request's transaction, so that it stays when the
   * request is refused (and its transaction rolled back): a director reaching another agency's credential.
   */
  recordRefusal(entry: NewAuditEntry): Promise<void>;
  /** Issue 37: one agency's guarantees and documents (reads) and webhooks, as its partner API scopes them: a director's own agency. */
  /** Issue 37: what a director's re-invitation from the back office needs (the admin tool's settings). */
  people: PeopleSettings;
  agency(companyId: string): { guarantees: CompanyGuarantees; documents: CompanyDocuments; webhooks: CompanyWebhooks };
}

export interface PeopleSettings {
  /** CONSOLE_BASE_PATH: the enrolment link's path. */
  consoleBasePath: string;
  /** CONSOLE_INVITATION_HOURS: how long a link is valid. */
  invitationHours: number;
}

export function backOfficeWork(
  environment: Environment,
  credentialsPerAgency: number,
  webhookRules: WebhookRules,
  documents: DocumentServices,
  people: PeopleSettings,
  db?: Database,
) {
  return (unit: UnitOfWork, principal: Principal): BackOfficeWork => ({
    documents,
    people,
    unit,
    db: unit.db,
    environment,
    credentialsPerAgency,
    operator: (kind, scope) => operatorOf(principal, kind, scope),
    recordRefusal: async (entry) => {
      if (db) await recordAudit(db, entry);
    },
    agency: (companyId) => ({
      // Reads only: the actor, the comment quota and the contracts are never used by the agency view.
      guarantees: companyGuarantees(unit, companyId, staffMember(principal.personName ?? principal.displayName), {
        commentQuotaPerDay: 0,
        contracts: documents.contracts,
      }),
      documents: companyDocuments(unit, companyId, staffMember(principal.personName ?? principal.displayName), documents),
      webhooks: companyWebhooks(unit, { ...principal, companyId }, webhookRules),
    }),
  });
}

export const { defineOperation } = operationRegistry<operations, BackOfficeWork>();

export const SCOPE = {
  review: 'ops:guarantees:review',
  ledger: 'ops:ledger:write',
  admin: 'ops:credentials:admin',
  manage: 'ops:credentials:manage',
} as const;
