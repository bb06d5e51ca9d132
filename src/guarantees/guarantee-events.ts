/**
 * The events of a change to a guarantee, emitted by guarantee-change.ts and create-guarantee.ts
 * (every write of a guarantee goes through one of them) in the change's transaction. Payloads are
 * fat: the guarantee as the API shows it right after the change, and its signature records.
 */
import type { UnitOfWork } from '../database/unit-of-work';
import { toRentalInsurance, type GuaranteeRow } from './guarantee-mapper';
import { listSignatures } from './signatures';
import type { Effect, SignatureChange, Status } from './transitions/status-machine';
import { emitEvent } from '../events/outbox';

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

export async function emitGuaranteeEvents(unit: UnitOfWork, change: GuaranteeChangeFacts): Promise<void> {
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
  if (!change.signaturesChanged) return;
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
}

/** Whether a change touched the signature records. */
export function signaturesChanged(change: SignatureChange, historyKind: string): boolean {
  return change !== 'keep' || historyKind === 'signature_changed';
}
