/**
 * Document rows and the agency's blobs. A document names its bytes by (agency, SHA-256): the same
 * bytes attached twice, to one guarantee or two, are one blob. Every statement a partner's request
 * reaches is filtered by its agency; the back office's reads are not.
 */
import type { Queryable } from '../../database/prisma-client';
import type { Actor } from '../../auth/actors';
import type { DocumentRow } from '../guarantee-mapper';

/** Bytes a write keeps: what they are and where they were staged. */
export interface KeptBytes {
  fileName: string | null;
  contentType: string;
  size: number;
  sha256: string;
  staged: { key: string; store: string };
}

/**
 * Makes the staged bytes the agency's blobs, in the write's transaction: a blob the agency already
 * has (same SHA-256) stays as it is, and the new copy stays staged (the request discards it); a
 * new blob keeps its staged bytes, whose staging record is deleted here, so they commit together.
 */
export async function keepBlobs(db: Queryable, companyId: string, files: readonly KeptBytes[]): Promise<void> {
  const incoming = JSON.stringify(files.map((file) => ({ sha256: file.sha256, size: file.size, contentType: file.contentType, ...file.staged })));
  await db.$executeRaw`
    WITH incoming AS (
      SELECT DISTINCT ON (x.sha256) x.sha256, x.size, x."contentType", x.store, x.key
      FROM jsonb_to_recordset(${incoming}::jsonb) AS x(sha256 text, size bigint, "contentType" text, store text, key text)
      ORDER BY x.sha256
    ), kept AS (
      INSERT INTO document_blobs (company_id, sha256, size, content_type, store, storage_key)
      SELECT ${companyId}, sha256, size, "contentType", store, key FROM incoming
      ON CONFLICT (company_id, sha256) DO NOTHING
      RETURNING storage_key
    )
    DELETE FROM document_uploads WHERE storage_key IN (SELECT storage_key FROM kept)`;
}

/** The documents of one history entry, in the order given. */
export async function insertDocuments(
  db: Queryable,
  target: { companyId: string; rentalInsuranceId: bigint; historyEntryId: bigint; actor: Actor; at: Date },
  files: readonly Omit<KeptBytes, 'staged'>[],
) {
  const rows = await db.document.createManyAndReturn({
    data: files.map((file) => ({
      historyEntryId: target.historyEntryId,
      companyId: target.companyId,
      rentalInsuranceId: target.rentalInsuranceId,
      fileName: file.fileName,
      contentType: file.contentType,
      size: file.size,
      sha256: file.sha256,
      creatorName: target.actor.name,
      creatorServiceAccount: target.actor.serviceAccount,
      createdAt: target.at,
    })),
  });
  return rows.sort((a, b) => (a.id < b.id ? -1 : 1));
}

/** How many documents the guarantee holds (its limit is 100). */
export async function countDocuments(db: Queryable, rentalInsuranceId: bigint): Promise<number> {
  return db.document.count({ where: { rentalInsuranceId } });
}

/** One page of the guarantee's documents, newest first, and their number. */
export async function documentPage(db: Queryable, rentalInsuranceId: bigint, page: { offset: number; size: number }) {
  const total = await countDocuments(db, rentalInsuranceId);
  const rows =
    page.offset < total
      ? await db.document.findMany({ where: { rentalInsuranceId }, orderBy: { id: 'desc' }, skip: page.offset, take: page.size })
      : [];
  return { rows, total };
}

/** A document of the guarantee with where its bytes are; the agency's only, unless `companyId` is null (back office). */
export interface StoredDocument extends DocumentRow {
  store: string;
  storageKey: string;
}

export async function findStoredDocument(
  db: Queryable,
  companyId: string | null,
  rentalInsuranceId: bigint,
  documentId: bigint,
): Promise<StoredDocument | undefined> {
  const rows = await db.$queryRaw<StoredDocument[]>`
    SELECT d.id, d.file_name AS "fileName", d.content_type AS "contentType", d.size, d.sha256, d.created_at AS "createdAt",
           d.creator_name AS "creatorName", d.creator_service_account AS "creatorServiceAccount", b.store, b.storage_key AS "storageKey"
    FROM documents d JOIN document_blobs b ON b.company_id = d.company_id AND b.sha256 = d.sha256
    WHERE d.id = ${documentId} AND d.rental_insurance_id = ${rentalInsuranceId} AND d.purged_at IS NULL
      AND (${companyId}::text IS NULL OR d.company_id = ${companyId}::text)`;
  return rows[0];
}
