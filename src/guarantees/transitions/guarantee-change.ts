/**
 * Applies one change to a locked guarantee through the status machine: new column values, the
 * next status, the signature consequence, the version bump, the history entry and the events
 * (src/events: the outbox), together, all stamped with the guarantee's own time
 * (guarantee-clock.ts): the last two are appended to the unit of work, which writes them with its last statement,
 * in the same transaction (database/unit-of-work.ts).
 */
import type { UnitOfWork } from '../../database/unit-of-work';
import { changeTime } from '../guarantee-clock';
import { emitGuaranteeEvents, signaturesChanged } from '../guarantee-events';
import type { GuaranteeRow } from '../guarantee-mapper';
import { updateGuarantee, type GuaranteeValues, type LockedGuarantee } from '../guarantee-repository';
import type { Actor } from '../../auth/actors';
import { recordHistory, writeHistoryNow, type HistoryKind } from '../history';
import { addDocumentsToEntry, type SentDocuments } from '../documents/attach-documents';
import type { ContractIssuer } from '../documents/contract-issuer';
import { applySignatureChange } from '../signatures';
import { transition, type Effect, type GuaranteeEvent } from './status-machine';

export interface ChangeOutcome {
  row: GuaranteeRow;
  effects: Effect[];
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
    /** Files a reviewer sends with the move (an information request, a decline): its history entry carries them. */
    documents?: SentDocuments;
    /** Renders the contract when the move requests signatures or reissues the contract (partner writes). */
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
  const contract = issuesContract ? await change.contracts!.issue(unit, row, at) : undefined;
  let contractId: bigint | undefined;
  if (contract || change.documents) {
    // Documents name their entry: it is written now rather than appended.
    const written = await writeHistoryNow(unit, entry);
    if (change.documents) await addDocumentsToEntry(unit, row.companyId, written, change.actor, change.documents.files, change.documents.rules);
    if (contract) contractId = (await addDocumentsToEntry(unit, row.companyId, written, change.actor, [contract]))[0]!.id;
  } else {
    recordHistory(unit, entry);
  }
  const signatures = await applySignatureChange(unit.db, locked.id, next.signatures, contractId);
  await emitGuaranteeEvents(unit, {
    row,
    previousStatus: locked.status,
    status: next.to,
    effects: next.effects,
    signaturesChanged: signaturesChanged(next.signatures, change.historyKind),
    signatures,
    comment,
    ...(at ? { at } : {}),
  });
  return { row, effects: next.effects };
}
