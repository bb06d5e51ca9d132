/**
 * A partner's page of a guarantee's history in ONE statement: whether the guarantee is the
 * company's, how many entries it has, and the page's entries with their documents. Read as four
 * statements one after the other (the ownership check, the count, the entries, Prisma's separate
 * query for the included documents), the history paid four round trips and their driver and
 * Prisma work where a get by id pays one. The count still comes before the page inside the
 * statement: a page past the end reads no entry.
 */
import type { Queryable } from '../database/prisma-client';
import { readRows } from '../database/direct-reads';
import { Prisma } from '../generated/prisma/client';
import type { DocumentRow, ShownHistoryEntry } from './guarantee-mapper';

/** A document as json_build_object gives it: its time as text. */
type DocumentJson = Omit<DocumentRow, 'createdAt'> & { createdAt: string };

type Row = { total: number; id: bigint | null } & { [Field in keyof ShownHistoryEntry]: ShownHistoryEntry[Field] | null };

/** The page and the number of entries; undefined when the company has no such guarantee. */
export async function companyHistoryPage(
  db: Queryable,
  companyId: string,
  rentalInsuranceId: bigint,
  page: { offset: number; size: number },
): Promise<{ rows: ShownHistoryEntry[]; total: number } | undefined> {
  // One row per entry of the page, or a single row without entry (its `id` null) when the page is
  // empty; no row at all when the guarantee is not the company's.
  const rows = await readRows<Row>(
    db,
    Prisma.sql`
    WITH g AS (SELECT r.id FROM rental_insurances r WHERE r.company_id = ${companyId} AND r.id = ${rentalInsuranceId}),
         n AS (SELECT count(*)::int AS total FROM history_entries h JOIN g ON h.rental_insurance_id = g.id)
    SELECT n.total, e.id, e."creatorName", e."creatorServiceAccount", e.comment, e."previousStatus", e.status, e."createdAt", e.documents
    FROM g CROSS JOIN n LEFT JOIN LATERAL (
      SELECT h.id, h.creator_name AS "creatorName", h.creator_service_account AS "creatorServiceAccount", h.comment,
             h.previous_status::text AS "previousStatus", h.status::text AS status, h.created_at AS "createdAt",
             COALESCE((SELECT json_agg(json_build_object('id', d.id, 'fileName', d.file_name, 'contentType', d.content_type, 'size', d.size, 'sha256', d.sha256,
                                                 'createdAt', d.created_at, 'creatorName', d.creator_name, 'creatorServiceAccount', d.creator_service_account) ORDER BY d.id)
                       FROM documents d WHERE d.history_entry_id = h.id), '[]') AS documents
      FROM history_entries h
      WHERE h.rental_insurance_id = g.id AND ${page.offset}::int8 < n.total
      ORDER BY h.id OFFSET ${page.offset} LIMIT ${page.size}
    ) e ON true
    ORDER BY e.id`,
  );
  if (rows.length === 0) return undefined;
  const entries = rows.flatMap(({ total: _total, id, ...entry }) => (id === null ? [] : [withDates(entry as ShownHistoryEntry)]));
  return { rows: entries, total: rows[0]!.total };
}

/** json_agg gives a document's time as text (RFC 3339 with its offset); the mapper takes a Date. */
function withDates(entry: ShownHistoryEntry): ShownHistoryEntry {
  const documents = entry.documents as unknown as DocumentJson[];
  return { ...entry, documents: documents.map((document) => ({ ...document, createdAt: new Date(document.createdAt) })) };
}
