/** History entries of a guarantee: every creation, change, status move, comment and signature event. */
import type { Queryable } from '../database/prisma-client';
import { toTimestamp } from '../database/column-values';
import { heldAppends, type HeldHistoryEntry } from '../database/held-appends';
import { Prisma } from '../generated/prisma/client';
import type { components } from '../generated/partner-api';
import { emitEvent } from '../events/outbox';
import { STATUS_LABELS, type Status } from './status-machine';

export interface Actor {
  name: string;
  serviceAccount: boolean;
}

export const SYSTEM_ACTOR: Actor = { name: 'system', serviceAccount: true };
/** The staff identity of the sandbox's review decisions in history (src/sandbox/). */
export const SANDBOX_REVIEWER: Actor = { name: 'Sandbox reviewer', serviceAccount: false };
/** Every name the service itself signs history with: no credential may take one (src/auth/reserved-names.ts). */
export const SERVICE_ACTORS: readonly Actor[] = [SYSTEM_ACTOR, SANDBOX_REVIEWER];

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

/**
 * Appends an entry and returns it (a new entry has no documents yet). Entries the transaction
 * holds (held-appends.ts) are written first, in the same statement, so entries keep their order.
 */
export async function appendHistory(db: Queryable, entry: NewHistoryEntry): Promise<HistoryRow> {
  const entries = [...(heldAppends(db)?.history.splice(0) ?? []), heldEntry(entry)];
  // Tagged raw SQL rather than historyEntry.create: every comment runs it, and the model API costs
  // several times the CPU of a raw statement (bench/results.md).
  const rows = await db.$queryRaw<Array<Omit<HistoryRow, 'documents'>>>`
    WITH ${historyRowsCte(entries)}
    SELECT id, rental_insurance_id AS "rentalInsuranceId", kind, creator_name AS "creatorName",
           creator_service_account AS "creatorServiceAccount", comment, previous_status AS "previousStatus", status, created_at AS "createdAt"
    FROM held_history ORDER BY id DESC LIMIT 1`;
  return { ...rows[0]!, documents: [] };
}

/** Appends an entry nobody reads back (every write of a guarantee adds one): held by a write's transaction, else written at once. */
export async function recordHistory(db: Queryable, entry: NewHistoryEntry): Promise<void> {
  const held = heldAppends(db);
  if (held) held.history.push(heldEntry(entry));
  else await appendHistory(db, entry);
}

/** The CTE `held_history` that inserts the entries in their order and returns their rows. */
export function historyRowsCte(entries: HeldHistoryEntry[]): Prisma.Sql {
  const rows = JSON.stringify(entries, (_, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
  return Prisma.sql`held_history AS (
    INSERT INTO history_entries (rental_insurance_id, kind, creator_name, creator_service_account, comment, previous_status, status, created_at)
    SELECT (h->>'rentalInsuranceId')::bigint, h->>'kind', h->>'creatorName', (h->>'creatorServiceAccount')::boolean, h->>'comment',
           (h->>'previousStatus')::"RentalInsuranceStatus", (h->>'status')::"RentalInsuranceStatus",
           COALESCE((h->>'createdAt')::timestamptz, CURRENT_TIMESTAMP)
    FROM jsonb_array_elements(${rows}::jsonb) WITH ORDINALITY AS held(h, position) ORDER BY held.position
    RETURNING *)`;
}

function heldEntry(entry: NewHistoryEntry, createdAt?: Date): HeldHistoryEntry {
  const { actor, ...columns } = entry;
  return { ...columns, creatorName: actor.name, creatorServiceAccount: actor.serviceAccount, ...(createdAt ? { createdAt } : {}) };
}

/**
 * A comment (the partner's or a reviewer's): the history entry and its `rental_insurance.comment_added`
 * event. Given its time `at` (the transaction's, read beforehand), a write's transaction holds the
 * entry like any other (held-appends.ts); without it, the entry is written at once and read back.
 */
export async function appendComment(
  db: Queryable,
  companyId: string,
  entry: NewHistoryEntry & { kind: 'comment' },
  at?: Date,
): Promise<ShownHistoryEntry> {
  const held = heldAppends(db);
  let row: ShownHistoryEntry;
  if (held && at) {
    held.history.push(heldEntry(entry, at));
    const { actor, comment, previousStatus, status } = entry;
    row = { creatorName: actor.name, creatorServiceAccount: actor.serviceAccount, comment, previousStatus, status, createdAt: at, documents: [] };
  } else {
    row = await appendHistory(db, entry);
  }
  const historyEntry = toHistoryEntry(row);
  await emitEvent(db, {
    companyId,
    type: 'rental_insurance.comment_added',
    data: { rentalInsuranceId: Number(entry.rentalInsuranceId), historyEntry },
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

type HistoryRow = Awaited<ReturnType<typeof listHistory>>[number];

/** What a history entry shows a partner (its id and guarantee are not shown). */
type ShownHistoryEntry = Pick<
  HistoryRow,
  'creatorName' | 'creatorServiceAccount' | 'comment' | 'previousStatus' | 'status' | 'documents' | 'createdAt'
>;

const statusObject = (status: Status | null) => ({ code: status, description: status ? STATUS_LABELS[status] : null });

export function toHistoryEntry(row: ShownHistoryEntry): components['schemas']['HistoryEntry'] {
  return {
    creator: { name: row.creatorName, serviceAccount: row.creatorServiceAccount },
    comment: row.comment,
    previousStatus: statusObject(row.previousStatus),
    status: statusObject(row.status),
    documents: row.documents.map((document) => ({ id: Number(document.id), fileName: document.fileName })),
    createdAt: toTimestamp(row.createdAt),
  };
}
