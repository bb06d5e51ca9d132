/**
 * Applies one change to a locked guarantee through the status machine: new column values, the
 * next status, the signature consequence, the version bump, the history entry and the events
 * (src/events: the outbox), together, all stamped with the guarantee's own time
 * (guarantee-clock.ts): the last two are held by the unit of work and written when it is flushed,
 * in the same transaction (database/unit-of-work.ts).
 */
import type { UnitOfWork } from '../database/unit-of-work';
import { changeTime } from './guarantee-clock';
import { emitGuaranteeEvents, signaturesChanged } from './guarantee-events';
import type { GuaranteeRow } from './guarantee-mapper';
import { updateGuarantee, type GuaranteeValues, type LockedGuarantee } from './guarantee-repository';
import type { Actor } from '../auth/actors';
import { recordHistory, type HistoryKind } from './history';
import { applySignatureChange } from './signatures';
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
  },
): Promise<ChangeOutcome> {
  const next = transition(locked.status, change.event);
  const at = changeTime(locked);
  const data: GuaranteeValues = { ...change.data, ...(at ? { updatedAt: at } : {}) };
  if (next.to !== locked.status) data.status = next.to;
  if (change.event.type === 'reviewer_approved') data.approvedAt = at ?? new Date();
  if (change.event.type === 'terminated') data.terminatedAt = at ?? new Date();
  const row = await updateGuarantee(unit.db, locked, data);
  const signatures = await applySignatureChange(unit.db, locked.id, next.signatures);
  const notes = [change.note, ...next.effects.map((effect) => EFFECT_NOTES[effect])].filter((note): note is string => !!note);
  const comment = notes.length > 0 ? notes.join(' ') : null;
  recordHistory(unit, {
    rentalInsuranceId: locked.id,
    kind: change.historyKind,
    actor: change.actor,
    comment,
    previousStatus: locked.status,
    status: next.to,
    ...(at ? { createdAt: at } : {}),
  });
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
