/**
 * Back-office operations on guarantees of any agency, shared by the back-office API and the admin
 * command-line tool (no HTTP here). Input checks and conversions happen here once; the moves
 * themselves are the domain functions of src/guarantees/review-actions.ts, which go through the one
 * status machine, bump the version and write history.
 */
import type { Queryable } from '../../database/prisma-client';
import type { UnitOfWork } from '../../database/unit-of-work';
import { rentalInsuranceNotFound, ValidationFailed } from '../../errors';
import { isDateOnly } from '../../financial/date-range';
import type { ChangeOutcome } from './guarantee-change';
import type { GuaranteeRow } from '../guarantee-mapper';
import type { Actor } from '../../auth/actors';
import { appendComment } from '../history';
import { changeTime } from '../guarantee-repository';
import { centsToDecimalString, MAX_ABS_CENTS, normaliseCpfCnpj, toCents } from '../../validation';
import * as review from './review-actions';
import type { SentDocuments } from '../documents/attach-documents';

/** A staff member as the creator of history entries (`serviceAccount: false`). */
export const staffMember = (name: string): Actor => ({ name, serviceAccount: false });

const MAX_COMMENT = 2000;
/** installment_amount is NUMERIC(12,2); the contract allows up to 999,999,999.99 like other monthly amounts. */
const MAX_INSTALLMENT_CENTS = 99_999_999_999n;

export interface ApprovalInput {
  installmentAmount: number;
  coverageLimit: number;
  rentCoverageLimit: number;
  /** YYYY-MM-DD */
  startBillingDate: string;
  terminationDate?: string | null;
  comment?: string | null;
}

export type SignerRole = 'document' | 'tenant' | 'co_tenant';

export type ReviewOperation =
  | { type: 'approve'; terms: ApprovalInput }
  | { type: 'decline'; comment?: string | null; documents?: SentDocuments }
  | { type: 'request_information'; comment: string; documents?: SentDocuments }
  | { type: 'envelope_ready' }
  | { type: 'signature'; role: SignerRole; cpfCnpj?: string | null; outcome: 'signed' | 'refused' }
  | { type: 'expire' }
  | { type: 'terminate' }
  | { type: 'archive' };

/** The guarantee, whatever its agency (the back office sees them all). */
export async function findAnyGuarantee(db: Queryable, id: bigint): Promise<GuaranteeRow> {
  const row = await db.rentalInsurance.findUnique({ where: { id }, include: { coTenants: { orderBy: { id: 'asc' } } } });
  if (!row) throw rentalInsuranceNotFound();
  return row;
}

/** A review operation whose input passed every check (400 otherwise, with every problem). */
export interface CheckedReview {
  operation: ReviewOperation;
  terms?: review.ApprovalTerms;
  cpfCnpj?: string;
}

/** Checks a review operation's input: every problem at once (400). */
export function checkReviewOperation(operation: ReviewOperation): CheckedReview {
  return { operation, ...checkInput(operation) };
}

/**
 * Applies one back-office operation to guarantee `id` in the caller's unit of work (the admin
 * tool's path): its input is checked (400), the guarantee locked (404), and the move applied (409
 * `invalid_state` where the status machine refuses). The back-office API does the first two in its
 * precondition and then calls `applyCheckedReview`.
 */
export async function applyReviewOperation(unit: UnitOfWork, id: bigint, staff: Actor, operation: ReviewOperation): Promise<ChangeOutcome> {
  const checked = checkReviewOperation(operation);
  return applyCheckedReview(unit, await review.lockForReview(unit.db, id), staff, checked);
}

/** Applies a checked operation to a guarantee locked in this transaction. */
export async function applyCheckedReview(
  unit: UnitOfWork,
  guarantee: review.ReviewTarget,
  staff: Actor,
  checked: CheckedReview,
): Promise<ChangeOutcome> {
  const { operation } = checked;
  switch (operation.type) {
    case 'approve':
      return review.approve(unit, guarantee, staff, checked.terms!, cleanComment(operation.terms.comment));
    case 'decline':
      return review.decline(unit, guarantee, staff, cleanComment(operation.comment), operation.documents);
    case 'request_information':
      return review.requestInformation(unit, guarantee, staff, operation.comment.trim(), operation.documents);
    case 'envelope_ready':
      return review.markEnvelopeReady(unit, guarantee, staff);
    case 'signature':
      return review.recordSignature(unit, guarantee, { role: operation.role, cpfCnpj: checked.cpfCnpj ?? null }, operation.outcome, staff);
    case 'expire':
      return review.expireProposal(unit, guarantee, staff);
    case 'terminate':
      return review.terminate(unit, guarantee, staff);
    case 'archive':
      return review.archive(unit, guarantee, staff);
  }
}

/** A staff comment in the guarantee's history (any status; neither data, status nor version change). */
export async function addStaffComment(unit: UnitOfWork, id: bigint, staff: Actor, comment: string) {
  const text = comment.trim();
  if (text.length === 0 || text.length > MAX_COMMENT) throw new ValidationFailed([`comment: must be 1 to ${MAX_COMMENT} characters`]);
  const locked = await review.lockForReview(unit.db, id);
  // Written at once and read back: the answer shows the entry with the time PostgreSQL gives it, or
  // the guarantee's own time when a sandbox time travel put it ahead of the wall clock.
  const at = changeTime(locked);
  const entry = {
    rentalInsuranceId: id,
    kind: 'comment',
    actor: staff,
    comment: text,
    previousStatus: locked.status,
    status: locked.status,
    ...(at ? { createdAt: at } : {}),
  } as const;
  return appendComment(unit, locked.companyId, entry, 'now');
}

function cleanComment(comment: string | null | undefined): string | null {
  const text = comment?.trim();
  return text ? text : null;
}

/** Every input problem at once (the CLI's values reach here unchecked by any schema). */
function checkInput(operation: ReviewOperation): { terms?: review.ApprovalTerms; cpfCnpj?: string } {
  const problems: string[] = [];
  const commentProblem = (name: string, value: string | null | undefined, required: boolean) => {
    const text = value?.trim() ?? '';
    if (required && text.length === 0) problems.push(`${name}: is required`);
    if (text.length > MAX_COMMENT) problems.push(`${name}: at most ${MAX_COMMENT} characters`);
  };
  let result: { terms?: review.ApprovalTerms; cpfCnpj?: string } = {};
  switch (operation.type) {
    case 'approve':
      result = { terms: approvalTerms(operation.terms, problems) };
      commentProblem('comment', operation.terms.comment, false);
      break;
    case 'decline':
      commentProblem('comment', operation.comment, false);
      break;
    case 'request_information':
      commentProblem('comment', operation.comment, true);
      break;
    case 'signature':
      if (!['document', 'tenant', 'co_tenant'].includes(operation.role)) problems.push('role: must be document, tenant or co_tenant');
      if (!['signed', 'refused'].includes(operation.outcome)) problems.push('outcome: must be signed or refused');
      if (operation.role === 'document') {
        if (operation.cpfCnpj) problems.push('cpfCnpj: the document record has no signer; omit cpfCnpj');
      } else if (!operation.cpfCnpj) {
        problems.push(`cpfCnpj: is required for role ${operation.role}`);
      } else {
        const normalised = normaliseCpfCnpj(operation.cpfCnpj);
        if (normalised.ok) result = { cpfCnpj: normalised.value };
        else problems.push(`cpfCnpj: ${normalised.reason}`);
      }
      break;
    default:
      break;
  }
  if (problems.length > 0) throw new ValidationFailed(problems);
  return result;
}

function approvalTerms(input: ApprovalInput, problems: string[]): review.ApprovalTerms | undefined {
  const cents = (name: string, value: unknown, max: bigint): bigint | null => {
    const amount = typeof value === 'number' ? toCents(value) : null;
    if (amount === null || amount <= 0n || amount > max) {
      problems.push(`${name}: must be an amount greater than 0 and at most ${centsToDecimalString(max)} with at most 2 decimal places`);
      return null;
    }
    return amount;
  };
  const installment = cents('installmentAmount', input.installmentAmount, MAX_INSTALLMENT_CENTS);
  const coverage = cents('coverageLimit', input.coverageLimit, MAX_ABS_CENTS);
  const rentCoverage = cents('rentCoverageLimit', input.rentCoverageLimit, MAX_ABS_CENTS);
  if (coverage !== null && rentCoverage !== null && rentCoverage > coverage) {
    problems.push('rentCoverageLimit: must not exceed coverageLimit');
  }
  const startOk = typeof input.startBillingDate === 'string' && isDateOnly(input.startBillingDate);
  if (!startOk) problems.push('startBillingDate: must be a date (YYYY-MM-DD)');
  const termination = input.terminationDate ?? null;
  if (termination !== null) {
    if (typeof termination !== 'string' || !isDateOnly(termination)) problems.push('terminationDate: must be a date (YYYY-MM-DD)');
    else if (startOk && termination <= input.startBillingDate) problems.push('terminationDate: must be after startBillingDate');
  }
  if (installment === null || coverage === null || rentCoverage === null || !startOk) return undefined;
  return {
    installmentAmountCents: installment,
    coverageLimitCents: coverage,
    rentCoverageLimitCents: rentCoverage,
    startBillingDate: input.startBillingDate,
    terminationDate: termination,
  };
}
