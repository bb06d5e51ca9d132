/**
 * What the service's reviewers and the signing process do to a guarantee. Each action goes through
 * the same status machine as the partner's writes, bumps the version and writes history.
 * These are the back office's domain functions; the back-office API, the command-line tool, the
 * scheduler and the sandbox reviewer all call them, on a guarantee the caller locked once
 * (`lockForReview`) in the same transaction, with the unit of work of that transaction, whose
 * appended history entries and events it writes before COMMIT (database/unit-of-work.ts).
 */
import type { Queryable } from '../../database/prisma-client';
import type { UnitOfWork } from '../../database/unit-of-work';
import { Conflict, NotFound, rentalInsuranceNotFound } from '../../errors';
import { centsToDecimalString } from '../../validation';
import { applyChange, type ChangeOutcome } from './guarantee-change';
import { changeTime, lockGuaranteeAnyCompany, type LockedGuarantee } from '../guarantee-repository';
import { SYSTEM_ACTOR, type Actor } from '../../auth/actors';
import { fromDateOnly } from '../../database/column-values';
import { postActivationEntries } from '../../financial/activation-entries';
import { addDocumentsToEntry, type SentDocuments } from '../documents/attach-documents';

export interface ApprovalTerms {
  installmentAmountCents: bigint;
  coverageLimitCents: bigint;
  rentCoverageLimitCents: bigint;
  /** YYYY-MM-DD */
  startBillingDate: string;
  /** YYYY-MM-DD, optional end of the guarantee. */
  terminationDate?: string | null;
}

/** A guarantee of any agency, locked until the transaction ends. */
export type ReviewTarget = LockedGuarantee & { companyId: string };

/**
 * Locks guarantee `id`, whatever its agency, until the transaction ends; 404 when there is none.
 * `at`: when the change happens, when not now on the guarantee's clock (sandbox time travel applies
 * each step at the time it was due).
 */
export async function lockForReview(db: Queryable, id: bigint, at?: Date): Promise<ReviewTarget> {
  const guarantee = await lockGuaranteeAnyCompany(db, id);
  if (!guarantee) throw rentalInsuranceNotFound();
  return at ? { ...guarantee, at } : guarantee;
}

export async function approve(
  unit: UnitOfWork,
  guarantee: ReviewTarget,
  reviewer: Actor,
  terms: ApprovalTerms,
  comment: string | null = null,
): Promise<ChangeOutcome> {
  const coverage = centsToDecimalString(terms.coverageLimitCents);
  const rentCoverage = centsToDecimalString(terms.rentCoverageLimitCents);
  return applyChange(unit, guarantee, {
    actor: reviewer,
    event: { type: 'reviewer_approved' },
    data: {
      installmentAmount: centsToDecimalString(terms.installmentAmountCents),
      coverageLimit: coverage,
      rentCoverageLimit: rentCoverage,
      remainingCoverageAmount: coverage,
      rentRemainingCoverageAmount: rentCoverage,
      startBillingDate: fromDateOnly(terms.startBillingDate),
      terminationDate: terms.terminationDate ? fromDateOnly(terms.terminationDate) : null,
    },
    historyKind: 'status_changed',
    note: comment ?? 'Proposal approved.',
  });
}

/** What attaches a reviewer's files to the move's history entry, once written (applyChange). */
function attaching(guarantee: ReviewTarget, reviewer: Actor, documents: SentDocuments | undefined) {
  if (!documents) return {};
  return {
    attach: (unit: UnitOfWork, entry: Parameters<typeof addDocumentsToEntry>[2]) =>
      addDocumentsToEntry(unit, guarantee.companyId, entry, reviewer, documents.files, documents.rules),
  };
}

/** `documents`: files the decline's history entry carries (they explain it). */
export async function decline(
  unit: UnitOfWork,
  guarantee: ReviewTarget,
  reviewer: Actor,
  comment: string | null = null,
  documents?: SentDocuments,
): Promise<ChangeOutcome> {
  return applyChange(unit, guarantee, {
    actor: reviewer,
    event: { type: 'reviewer_declined' },
    historyKind: 'status_changed',
    note: comment ?? 'Proposal declined.',
    ...attaching(guarantee, reviewer, documents),
  });
}

/** The comment is what the partner reads in the history: say what is missing. `documents`: a checklist, a form to return. */
export async function requestInformation(
  unit: UnitOfWork,
  guarantee: ReviewTarget,
  reviewer: Actor,
  comment: string,
  documents?: SentDocuments,
): Promise<ChangeOutcome> {
  return applyChange(unit, guarantee, {
    actor: reviewer,
    event: { type: 'reviewer_requested_information' },
    historyKind: 'status_changed',
    note: comment,
    ...attaching(guarantee, reviewer, documents),
  });
}

/** The signing envelope is ready: pending records get their signing link. */
export async function markEnvelopeReady(
  unit: UnitOfWork,
  guarantee: ReviewTarget,
  actor: Actor = SYSTEM_ACTOR,
  linkBase = 'https://sign.rentalguarantee.example/envelopes',
): Promise<ChangeOutcome> {
  const { id } = guarantee;
  const pending = await unit.db.signature.findMany({ where: { rentalInsuranceId: id, status: 'pending' }, orderBy: { id: 'asc' } });
  if (guarantee.status !== 'accepted' || pending.length === 0) {
    throw new Conflict('invalid_state', 'The signing envelope can only be made ready for an accepted contract with pending signatures.');
  }
  const envelope = `${id}-v${guarantee.version + 1}`;
  for (const [index, record] of pending.entries()) {
    await unit.db.signature.update({
      where: { id: record.id },
      data: { status: 'awaiting_signature', url: `${linkBase}/${envelope}/signers/${index + 1}`, updatedAt: changeTime(guarantee) ?? new Date() },
    });
  }
  return applyChange(unit, guarantee, {
    actor,
    event: { type: 'signatures_updated' },
    historyKind: 'signature_changed',
    note: 'Signing envelope ready; signers invited.',
  });
}

/**
 * A signer signs or refuses (`role` document has no CPF/CNPJ). When every record is signed and the
 * start of billing is set, the guarantee becomes active in the same transaction.
 */
export async function recordSignature(
  unit: UnitOfWork,
  guarantee: ReviewTarget,
  signer: { role: 'document' | 'tenant' | 'co_tenant'; cpfCnpj?: string | null },
  outcome: 'signed' | 'refused',
  actor: Actor = SYSTEM_ACTOR,
): Promise<ChangeOutcome> {
  const { id } = guarantee;
  const record = await unit.db.signature.findFirst({
    where: { rentalInsuranceId: id, role: signer.role, ...(signer.role === 'document' ? {} : { cpfCnpj: signer.cpfCnpj ?? '' }) },
  });
  if (!record) throw new NotFound('Signature record not found.');
  if (record.status !== 'awaiting_signature') {
    throw new Conflict('invalid_state', `This signature is ${record.status}; only a record awaiting signature can be ${outcome}.`);
  }
  await unit.db.signature.update({ where: { id: record.id }, data: { status: outcome, updatedAt: changeTime(guarantee) ?? new Date() } });
  const who = signer.role === 'document' ? 'The contract document' : `Signer ${record.name ?? record.cpfCnpj}`;
  let outcomeOfChange = await applyChange(unit, guarantee, {
    actor,
    event: { type: 'signatures_updated' },
    historyKind: 'signature_changed',
    note: outcome === 'signed' ? `${who} signed.` : `${who} refused to sign; reviewers notified.`,
  });
  const unsigned = await unit.db.signature.count({ where: { rentalInsuranceId: id, status: { not: 'signed' } } });
  if (unsigned === 0 && outcomeOfChange.row.startBillingDate !== null) {
    // Still locked: the signature's change is this guarantee's newest version, at the same time.
    const { row } = outcomeOfChange;
    const at = changeTime(guarantee);
    outcomeOfChange = await applyChange(
      unit,
      { id, status: row.status, version: row.version, ...(at ? { at } : {}) },
      {
        actor: SYSTEM_ACTOR,
        event: { type: 'contract_signed' },
        historyKind: 'status_changed',
        note: 'Every signature collected; the guarantee is active.',
      },
    );
    await postActivationEntries(unit, outcomeOfChange.row, at);
  }
  return outcomeOfChange;
}

const simpleMove =
  (type: 'proposal_expired' | 'terminated' | 'archived', note: string) =>
  async (unit: UnitOfWork, guarantee: ReviewTarget, actor: Actor = SYSTEM_ACTOR): Promise<ChangeOutcome> =>
    applyChange(unit, guarantee, { actor, event: { type }, historyKind: 'status_changed', note });

export const expireProposal = simpleMove('proposal_expired', 'The proposal expired without an answer.');
export const terminate = simpleMove('terminated', 'The guarantee was terminated.');
export const archive = simpleMove('archived', 'The guarantee was archived.');
