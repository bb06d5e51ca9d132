/**
 * A partner's guarantees: every read and write an operation handler can make, already scoped to
 * the company of the request's principal and signed by its credential (the history's creator).
 * Handlers see this, never a company id, a token or the database handle. Writes run on the
 * request's unit of work (database/unit-of-work.ts), which writes the history entries and events they append.
 */
import type { UnitOfWork } from '../database/unit-of-work';
import { rentalInsuranceNotFound } from '../errors';
import { addCoTenant, patchCoTenant, removeCoTenant } from './transitions/co-tenant-writes';
import { createGuarantee } from './create-guarantee';
import type { ColumnValues, NewGuarantee } from './guarantee-input';
import { listGuarantees, type GuaranteeFilters } from './guarantee-list';
import type { GuaranteeRow } from './guarantee-mapper';
import { findGuarantee, guaranteeStatus, lockGuarantee, type CoTenantColumns, type LockedGuarantee } from './guarantee-repository';
import { takeCommentSlot } from './comment-quota';
import type { Actor } from '../auth/actors';
import { appendComment } from './history';
import { companyHistoryPage } from './history-page';
import { patchGuarantee } from './transitions/patch-guarantee';
import { decideProposal } from './transitions/proposal-decisions';
import { signaturePage } from './signature-page';
import type { ContractIssuer } from './documents/contract-issuer';

export interface GuaranteeRules {
  /** Comments an agency may add per calendar day. */
  commentQuotaPerDay: number;
  /** Renders the contract an accept or a contract reissue asks the signers to sign. */
  contracts: ContractIssuer;
}

type Page = { offset: number; size: number };

export function companyGuarantees(unit: UnitOfWork, companyId: string, actor: Actor, rules: GuaranteeRules) {
  const { db } = unit;
  const owned = async (id: bigint): Promise<LockedGuarantee> => (await guaranteeStatus(db, companyId, id)) ?? notFound();
  return {
    find: (id: bigint) => findGuarantee(db, companyId, id),
    list: (filters: GuaranteeFilters, page: Page) => listGuarantees(db, companyId, filters, page),
    /** The guarantee a write changes, locked until the write's transaction ends (the precondition of If-Match). */
    lock: async (id: bigint): Promise<GuaranteeRow> => (await lockGuarantee(db, companyId, id)) ?? notFound(),
    create: (guarantee: NewGuarantee) => createGuarantee(unit, companyId, actor, guarantee),
    patch: (current: GuaranteeRow, requested: ColumnValues) => patchGuarantee(unit, actor, current, requested, rules.contracts),
    decide: (id: bigint, decision: 'accept' | 'refuse') => decideProposal(unit, companyId, actor, id, decision, rules.contracts),
    addCoTenant: (current: GuaranteeRow, columns: CoTenantColumns & { name: string }) => addCoTenant(unit, actor, current, columns, rules.contracts),
    patchCoTenant: (current: GuaranteeRow, cpfCnpj: string, changes: Omit<CoTenantColumns, 'cpfCnpj'>) =>
      patchCoTenant(unit, actor, current, cpfCnpj, changes, rules.contracts),
    removeCoTenant: (current: GuaranteeRow, cpfCnpj: string) => removeCoTenant(unit, actor, current, cpfCnpj, rules.contracts),
    history: async (id: bigint, page: Page) => (await companyHistoryPage(db, companyId, id, page)) ?? notFound(),
    signatures: async (id: bigint, page: Page) => signaturePage(db, (await owned(id)).id, page),
    /** Comments are allowed in every status and change neither data, status nor version. */
    comment: async (id: bigint, comment: string) => {
      const { status, at } = (await takeCommentSlot(db, companyId, id, rules.commentQuotaPerDay)) ?? notFound();
      return appendComment(unit, companyId, { rentalInsuranceId: id, kind: 'comment', actor, comment, previousStatus: status, status }, at);
    },
  };
}

export type CompanyGuarantees = ReturnType<typeof companyGuarantees>;

function notFound(): never {
  throw rentalInsuranceNotFound();
}
