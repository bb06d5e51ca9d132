/** History entries of a guarantee: every creation, change, status move, comment and signature event. */
import type { Queryable } from '../database/prisma-client';
import type { AppendedTable, UnitOfWork } from '../database/unit-of-work';
import { Prisma } from '../generated/prisma/client';
import { emitEvent } from '../events/outbox';
import type { Status } from './transitions/status-machine';
import type { Actor } from '../auth/actors';
import { toHistoryEntry, type ShownHistoryEntry } from './guarantee-mapper';

export type HistoryKind =
  | 'created'
  | 'data_changed'
  | 'status_changed'
  | 'comment'
  | 'co_tenant_added'
  | 'co_tenant_changed'
  | 'co_tenant_removed'
  | 'signature_changed'
  | 'contract_reissued'
  | 'documents_attached';

export interface NewHistoryEntry {
  rentalInsuranceId: bigint;
  kind: HistoryKind;
  actor: Actor;
  comment: string | null;
  previousStatus: Status | null;
  status: Status;
  /** When it happened, when not now (a time-travelled sandbox guarantee's own time). */
  createdAt?: Date;
}

/** A history entry as it is appended (its creator flattened into columns). */
interface HistoryEntryRow {
  rentalInsuranceId: bigint;
  kind: HistoryKind;
  creatorName: string;
  creatorServiceAccount: boolean;
  comment: string | null;
  previousStatus: Status | null;
  status: Status;
  /** Set when the write answers with the entry before it is written (a comment); else the column's default. */
  createdAt?: Date;
}

/**
 * history_entries as a unit of work's appended table (database/unit-of-work.ts): the CTE
 * `held_history` inserts the entries of a JSON array in their order and returns their rows.
 */
export const HISTORY_ENTRIES: AppendedTable = {
  name: 'history_entries',
  before: Prisma.sql`held_history AS (
    INSERT INTO history_entries (rental_insurance_id, kind, creator_name, creator_service_account, comment, previous_status, status, created_at)
    SELECT (h->>'rentalInsuranceId')::bigint, h->>'kind', h->>'creatorName', (h->>'creatorServiceAccount')::boolean, h->>'comment',
           (h->>'previousStatus')::"RentalInsuranceStatus", (h->>'status')::"RentalInsuranceStatus",
           COALESCE((h->>'createdAt')::timestamptz, CURRENT_TIMESTAMP)
    FROM jsonb_array_elements(`,
  after: Prisma.sql`) WITH ORDINALITY AS held(h, position) ORDER BY held.position
    RETURNING *)`,
};

/**
 * Records an entry nobody reads back (every write of a guarantee adds one): appended to the unit
 * of work, which writes it with the write's last statement, so no read of this transaction sees it.
 */
export function recordHistory(unit: UnitOfWork, entry: NewHistoryEntry): void {
  unit.append(HISTORY_ENTRIES, entryRow(entry));
}

/**
 * Writes an entry at once and returns it as read back, its id included (a new entry has no
 * documents yet: they name it), after what the unit appended before it, so rows keep the order in
 * which they were made.
 */
export async function writeHistoryNow(unit: UnitOfWork, entry: NewHistoryEntry): Promise<HistoryRow> {
  // Tagged raw SQL rather than historyEntry.create: the model API costs several times the CPU of a
  // raw statement (bench/results.md), and the CTE is the one the unit's last statement uses.
  const rows = await unit.writeNow<Omit<HistoryRow, 'documents'>>(
    HISTORY_ENTRIES,
    entryRow(entry),
    Prisma.sql`SELECT id, rental_insurance_id AS "rentalInsuranceId", kind, creator_name AS "creatorName",
           creator_service_account AS "creatorServiceAccount", comment, previous_status AS "previousStatus", status, created_at AS "createdAt"
    FROM held_history ORDER BY id DESC LIMIT 1`,
  );
  return { ...rows[0]!, documents: [] };
}

function entryRow(entry: NewHistoryEntry, createdAt?: Date): HistoryEntryRow {
  const { actor, ...columns } = entry;
  return { ...columns, creatorName: actor.name, creatorServiceAccount: actor.serviceAccount, ...(createdAt ? { createdAt } : {}) };
}

/**
 * A comment (the partner's or a reviewer's): the history entry and its `rental_insurance.comment_added`
 * event. Given its time `at` (the transaction's, read beforehand), the entry is appended like any
 * other and the answer is made from what is appended; without it (`at: 'now'`), the entry is written at once and
 * read back, for the time PostgreSQL gives it.
 */
export async function appendComment(
  unit: UnitOfWork,
  companyId: string,
  entry: NewHistoryEntry & { kind: 'comment' },
  at: Date | 'now',
): Promise<ShownHistoryEntry> {
  let row: ShownHistoryEntry;
  if (at instanceof Date) {
    unit.append(HISTORY_ENTRIES, entryRow(entry, at));
    const { actor, comment, previousStatus, status } = entry;
    row = { creatorName: actor.name, creatorServiceAccount: actor.serviceAccount, comment, previousStatus, status, createdAt: at, documents: [] };
  } else {
    row = await writeHistoryNow(unit, entry);
  }
  const historyEntry = toHistoryEntry(row);
  emitEvent(unit, {
    companyId,
    type: 'rental_insurance.comment_added',
    data: { rentalInsuranceId: Number(entry.rentalInsuranceId), historyEntry },
    occurredAt: row.createdAt,
  });
  return row;
}

/** The guarantee's history, oldest first: one page of it, or (admin tool) all of it. */
export async function listHistory(db: Queryable, rentalInsuranceId: bigint, page?: { offset: number; size: number }) {
  return db.historyEntry.findMany({
    where: { rentalInsuranceId },
    orderBy: { id: 'asc' },
    include: { documents: { orderBy: { id: 'asc' } } },
    ...(page ? { skip: page.offset, take: page.size } : {}),
  });
}

/** One page of the guarantee's history and the number of its entries. The count comes first, so a page past the end is never read. */
export async function historyPage(
  db: Queryable,
  rentalInsuranceId: bigint,
  page: { offset: number; size: number },
): Promise<{ rows: HistoryRow[]; total: number }> {
  const total = await db.historyEntry.count({ where: { rentalInsuranceId } });
  return { rows: page.offset < total ? await listHistory(db, rentalInsuranceId, page) : [], total };
}

export type HistoryRow = Awaited<ReturnType<typeof listHistory>>[number];
