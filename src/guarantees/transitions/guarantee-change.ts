/**
 * Applies one change to a locked guarantee through the status machine: new column values, the
 * next status, the signature consequence, the version bump, the history entry and the events
 * (src/events: the outbox), together, all stamped with the guarantee's own time (`changeTime`,
 * guarantee-repository.ts).
 * The entry and the events are appended to the unit of work, which writes them with its last
 * statement, in the same transaction (database/unit-of-work.ts). Every partner write, reviewer
 * action and time-driven move of this folder ends here.
 */
import type { UnitOfWork } from '../../database/unit-of-work';
import { emitEvent } from '../../events/outbox';
import type { components } from '../../generated/partner-api';
import { toRentalInsurance, type GuaranteeRow } from '../guarantee-mapper';
import { changeTime, updateGuarantee, type GuaranteeValues, type LockedGuarantee } from '../guarantee-repository';
import type { Actor } from '../../auth/actors';
import { recordHistory, writeHistoryNow, type HistoryKind, type HistoryRow } from '../history';
import type { ContractIssuer } from '../documents/contract-issuer';
import { applySignatureChange, listSignatures } from '../signatures';
import { transition, type Effect, type GuaranteeEvent, type SignatureChange, type Status } from './status-machine';

type Schemas = components['schemas'];

export interface ChangeOutcome {
  row: GuaranteeRow;
  effects: Effect[];
  /** The guarantee as the API shows it after the change (what its events carry and the write answers). */
  rentalInsurance: Schemas['RentalInsurance'];
}

const EFFECT_NOTES: Record<Effect, string> = {
  review_started: 'A new review started.',
  signature_requested: 'Contract signature requested.',
  contract_invalidated: 'The accepted contract was invalidated.',
  contract_reissued: 'The contract was reissued; signatures were reset.',
};

export async function applyChange(
  unit: UnitOfWork,
  locked: LockedGuarantee,
  change: {
    actor: Actor;
    event: GuaranteeEvent;
    data?: GuaranteeValues;
    historyKind: HistoryKind;
    note: string | null;
    /**
     * Attaches the files a reviewer sends with the move (an information request, a decline) to its
     * history entry, once written: documents name their entry.
     */
    attach?: (unit: UnitOfWork, entry: Omit<HistoryRow, 'documents'>) => Promise<unknown>;
    /** Renders the contract when the move requests signatures or reissues the contract (partner writes), and attaches it to the entry. */
    contracts?: ContractIssuer;
  },
): Promise<ChangeOutcome> {
  const next = transition(locked.status, change.event);
  const at = changeTime(locked);
  const data: GuaranteeValues = { ...change.data, ...(at ? { updatedAt: at } : {}) };
  if (next.to !== locked.status) data.status = next.to;
  if (change.event.type === 'reviewer_approved') data.approvedAt = at ?? new Date();
  if (change.event.type === 'terminated') data.terminatedAt = at ?? new Date();
  const row = await updateGuarantee(unit.db, locked, data);
  const notes = [change.note, ...next.effects.map((effect) => EFFECT_NOTES[effect])].filter((note): note is string => !!note);
  const comment = notes.length > 0 ? notes.join(' ') : null;
  const entry = {
    rentalInsuranceId: locked.id,
    kind: change.historyKind,
    actor: change.actor,
    comment,
    previousStatus: locked.status,
    status: next.to,
    ...(at ? { createdAt: at } : {}),
  };
  // The signers sign a document: the contract of this very version, on this change's entry.
  const issuesContract = next.effects.includes('signature_requested') || next.effects.includes('contract_reissued');
  if (issuesContract && !change.contracts) throw new Error(`A change with effects ${next.effects.join(', ')} needs a contract issuer`);
  let contractId: bigint | undefined;
  if (issuesContract || change.attach) {
    // Documents name their entry: it is written now rather than appended.
    const written = await writeHistoryNow(unit, entry);
    await change.attach?.(unit, written);
    if (issuesContract) contractId = await change.contracts!.issue(unit, row, written, change.actor, at);
  } else {
    recordHistory(unit, entry);
  }
  const signatures = await applySignatureChange(unit.db, locked.id, next.signatures, contractId);
  const rentalInsurance = await emitGuaranteeEvents(unit, {
    row,
    previousStatus: locked.status,
    status: next.to,
    effects: next.effects,
    signaturesChanged: signaturesChanged(next.signatures, change.historyKind),
    signatures,
    comment,
    ...(at ? { at } : {}),
  });
  return { row, effects: next.effects, rentalInsurance };
}

/** The outcome of a write that changes nothing (the guarantee as it is, no effect). */
export function unchanged(row: GuaranteeRow): ChangeOutcome {
  return { row, effects: [], rentalInsurance: toRentalInsurance(row) };
}

export interface GuaranteeChangeFacts {
  row: GuaranteeRow;
  previousStatus: Status | null;
  status: Status;
  effects: readonly Effect[];
  /** The signature records were created, reset, discarded or updated by this change. */
  signaturesChanged: boolean;
  /** The records as the change left them, when it wrote them itself (else they are read). */
  signatures?: Awaited<ReturnType<typeof listSignatures>>;
  comment: string | null;
  /** When the change happened, when not now (a time-travelled sandbox guarantee's own time). */
  at?: Date;
}

/**
 * The events of a change, emitted by applyChange and createGuarantee (every write of a guarantee
 * goes through one of them). Payloads are fat: the guarantee as the API shows it right after the
 * change (returned: the write answers with it), and its signature records.
 */
export async function emitGuaranteeEvents(unit: UnitOfWork, change: GuaranteeChangeFacts): Promise<Schemas['RentalInsurance']> {
  const { row } = change;
  const rentalInsurance = toRentalInsurance(row);
  const companyId = row.companyId;
  const occurredAt = change.at ? { occurredAt: change.at } : {};
  if (change.previousStatus !== change.status) {
    emitEvent(unit, {
      companyId,
      type: 'rental_insurance.status_changed',
      data: { previousStatus: change.previousStatus, status: change.status, comment: change.comment, rentalInsurance },
      ...occurredAt,
    });
  }
  if (!change.signaturesChanged) return rentalInsurance;
  const signatures = change.signatures ?? (await listSignatures(unit.db, row.id));
  emitEvent(unit, {
    companyId,
    type: 'rental_insurance.signature_changed',
    data: { comment: change.comment, signatures, rentalInsurance },
    ...occurredAt,
  });
  if (change.effects.includes('contract_reissued')) {
    emitEvent(unit, { companyId, type: 'rental_insurance.contract_reissued', data: { signatures, rentalInsurance }, ...occurredAt });
  }
  return rentalInsurance;
}

/** Whether a change touched the signature records. */
export function signaturesChanged(change: SignatureChange, historyKind: string): boolean {
  return change !== 'keep' || historyKind === 'signature_changed';
}
