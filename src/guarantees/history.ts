/** History entries of a guarantee: every creation, change, status move, comment and signature event. */
import type { Queryable } from '../database/prisma-client';
import { toTimestamp } from '../database/column-values';
import { sqlOf, type AnyTransaction } from '../database/sql';
import type { components } from '../generated/partner-api';
import { STATUS_LABELS, type Status } from './status-machine';

export interface Actor {
  name: string;
  serviceAccount: boolean;
}

export const SYSTEM_ACTOR: Actor = { name: 'system', serviceAccount: true };

export type HistoryKind =
  | 'created'
  | 'data_changed'
  | 'status_changed'
  | 'comment'
  | 'co_tenant_added'
  | 'co_tenant_changed'
  | 'co_tenant_removed'
  | 'signature_changed'
  | 'contract_reissued';

export interface NewHistoryEntry {
  rentalInsuranceId: bigint;
  kind: HistoryKind;
  actor: Actor;
  comment: string | null;
  previousStatus: Status | null;
  status: Status;
}

const INSERT_HISTORY = `INSERT INTO history_entries (rental_insurance_id, kind, creator_name, creator_service_account, comment, previous_status, status)
  VALUES ($1, $2, $3, $4, $5, $6::"RentalInsuranceStatus", $7::"RentalInsuranceStatus")`;

const historyValues = (entry: NewHistoryEntry) => [
  entry.rentalInsuranceId,
  entry.kind,
  entry.actor.name,
  entry.actor.serviceAccount,
  entry.comment,
  entry.previousStatus,
  entry.status,
];

/** Appends an entry and returns it (a new entry has no documents yet). */
export async function appendHistory(tx: AnyTransaction, entry: NewHistoryEntry) {
  const [row] = await sqlOf(tx).rows<Omit<HistoryRow, 'documents'>>(
    `${INSERT_HISTORY} RETURNING id, rental_insurance_id AS "rentalInsuranceId", kind, creator_name AS "creatorName",
       creator_service_account AS "creatorServiceAccount", comment, previous_status::text AS "previousStatus",
       status::text AS status, created_at AS "createdAt"`,
    historyValues(entry),
  );
  return { ...row!, documents: [] } satisfies HistoryRow;
}

/** Appends an entry nobody reads back in this transaction: on our own transactions it travels with COMMIT. */
export function recordHistory(tx: AnyTransaction, entry: NewHistoryEntry): Promise<void> {
  return sqlOf(tx).writeAtCommit(INSERT_HISTORY, historyValues(entry));
}

export async function listHistory(db: Queryable, rentalInsuranceId: bigint) {
  return db.historyEntry.findMany({
    where: { rentalInsuranceId },
    orderBy: { id: 'asc' },
    include: { documents: { orderBy: { id: 'asc' } } },
  });
}

type HistoryRow = Awaited<ReturnType<typeof listHistory>>[number];

const statusObject = (status: Status | null) => ({ code: status, description: status ? STATUS_LABELS[status] : null });

export function toHistoryEntry(row: HistoryRow): components['schemas']['HistoryEntry'] {
  return {
    creator: { name: row.creatorName, serviceAccount: row.creatorServiceAccount },
    comment: row.comment,
    previousStatus: statusObject(row.previousStatus),
    status: statusObject(row.status),
    documents: row.documents.map((document) => ({ id: Number(document.id), fileName: document.fileName })),
    createdAt: toTimestamp(row.createdAt),
  };
}
