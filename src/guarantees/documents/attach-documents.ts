/**
 * Documents join a guarantee's history: files a partner or a reviewer attaches in an entry of
 * their own (`attachDocuments`), files a reviewer sends with an information request or a decline,
 * attached by its review action (transitions/review-actions.ts), and the contract a change renders,
 * attached by the contract issuer (contract-issuer.ts), both once the change wrote its entry. In every case
 * the bytes become the agency's blobs, the rows name the entry, and the event
 * `rental_insurance.documents_attached` carries the entry, in the write's transaction.
 */
import { toHistoryEntry, type ShownHistoryEntry } from '../guarantee-mapper';
import type { UnitOfWork } from '../../database/unit-of-work';
import { Conflict } from '../../errors';
import { emitEvent } from '../../events/outbox';
import { changeTime, type LockedGuarantee } from '../guarantee-repository';
import type { Actor } from '../../auth/actors';
import { writeHistoryNow, type HistoryRow } from '../history';
import { takeDocumentBytes } from './document-quota';
import { countDocuments, insertDocuments, keepBlobs, type KeptBytes } from './document-repository';

/** A guarantee holds at most this many documents (the contract's limit). */
export const MAX_DOCUMENTS = 100;

export interface DocumentRules {
  /** Bytes an agency may upload per calendar day (America/Sao_Paulo). */
  bytesPerDay: number;
}

/** Files sent by a person (partner or reviewer): counted against the guarantee's limit and the agency's quota. */
export interface SentDocuments {
  files: readonly KeptBytes[];
  rules: DocumentRules;
}

/** A guarantee locked by the write, and its agency. */
export type DocumentTarget = LockedGuarantee & { companyId: string };

/**
 * A history entry of its own for the files and an optional comment (every status but archived):
 * neither data, status nor version change.
 */
export async function attachDocuments(
  unit: UnitOfWork,
  guarantee: DocumentTarget,
  actor: Actor,
  sent: SentDocuments,
  comment: string | null,
): Promise<ShownHistoryEntry> {
  if (guarantee.status === 'archived') throw new Conflict('invalid_state', 'An archived rental insurance takes no more documents.');
  const at = changeTime(guarantee);
  const entry = await writeHistoryNow(unit, {
    rentalInsuranceId: guarantee.id,
    kind: 'documents_attached',
    actor,
    comment,
    previousStatus: guarantee.status,
    status: guarantee.status,
    ...(at ? { createdAt: at } : {}),
  });
  const documents = await addDocumentsToEntry(unit, guarantee.companyId, entry, actor, sent.files, sent.rules);
  return { ...entry, documents };
}

/**
 * The documents of a history entry written in this transaction: the guarantee's limit and the
 * agency's quota are checked when `rules` are given (files a person sent; a contract the service
 * renders is always attached), then the blobs are kept, the rows written and the event emitted.
 */
export async function addDocumentsToEntry(
  unit: UnitOfWork,
  companyId: string,
  entry: Omit<HistoryRow, 'documents'>,
  actor: Actor,
  files: readonly KeptBytes[],
  rules?: DocumentRules,
) {
  const { db } = unit;
  if (rules) {
    const held = await countDocuments(db, entry.rentalInsuranceId);
    if (held + files.length > MAX_DOCUMENTS) {
      throw new Conflict('document_limit_reached', `A rental insurance holds at most ${MAX_DOCUMENTS} documents; it holds ${held}.`);
    }
    await takeDocumentBytes(
      db,
      companyId,
      files.reduce((sum, file) => sum + file.size, 0),
      rules.bytesPerDay,
    );
  }
  await keepBlobs(db, companyId, files);
  const documents = await insertDocuments(
    db,
    { companyId, rentalInsuranceId: entry.rentalInsuranceId, historyEntryId: entry.id, actor, at: entry.createdAt },
    files,
  );
  emitEvent(unit, {
    companyId,
    type: 'rental_insurance.documents_attached',
    data: { rentalInsuranceId: Number(entry.rentalInsuranceId), historyEntry: toHistoryEntry({ ...entry, documents }) },
    occurredAt: entry.createdAt,
  });
  return documents;
}
