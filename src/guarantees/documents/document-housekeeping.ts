/**
 * Documents' share of housekeeping (scheduler/housekeeping.ts), safe in every process at once:
 *  - bytes staged more than an hour ago and kept by no write (their process stopped before its
 *    request could discard them) are deleted, with their records;
 *  - DOCUMENT_RETENTION_DAYS after a guarantee was archived, its documents' bytes are deleted: the
 *    rows stay (the history keeps names, sizes and digests) and are marked purged, and a blob goes
 *    when no unpurged document of its agency names it. An archived guarantee never changes again
 *    (every write but a comment is refused, and a comment changes no column), so its `updated_at`
 *    is when it was archived.
 */
import type { Database } from '../../database/prisma-client';
import type { DocumentStores } from './document-store';
import { discardUploads } from './upload-staging';

const STALE_UPLOAD_MS = 60 * 60 * 1000;
const BATCH = 500;

export async function purgeStaleUploads(db: Database, stores: DocumentStores, now = new Date()): Promise<number> {
  const stale = await db.documentUpload.findMany({
    where: { startedAt: { lt: new Date(now.getTime() - STALE_UPLOAD_MS) } },
    take: BATCH,
    orderBy: { startedAt: 'asc' },
  });
  await discardUploads(
    db,
    stores,
    stale.map((upload) => upload.storageKey),
  );
  return stale.length;
}

export async function purgeArchivedDocuments(db: Database, stores: DocumentStores, retentionDays: number, now = new Date()): Promise<number> {
  const before = new Date(now.getTime() - retentionDays * 86_400_000);
  const purged = await db.$queryRaw<Array<{ companyId: string; sha256: string }>>`
    UPDATE documents d SET purged_at = ${now}
    WHERE d.id IN (
      SELECT d2.id FROM documents d2 JOIN rental_insurances r ON r.id = d2.rental_insurance_id
      WHERE d2.purged_at IS NULL AND r.status = 'archived' AND r.updated_at < ${before}
      LIMIT ${BATCH})
    RETURNING d.company_id AS "companyId", d.sha256`;
  if (purged.length === 0) return 0;
  const blobs = await db.$queryRaw<Array<{ store: string; storageKey: string }>>`
    DELETE FROM document_blobs b
    USING jsonb_to_recordset(${JSON.stringify(purged)}::jsonb) AS p("companyId" text, sha256 text)
    WHERE b.company_id = p."companyId" AND b.sha256 = p.sha256
      AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.company_id = b.company_id AND d.sha256 = b.sha256 AND d.purged_at IS NULL)
    RETURNING b.store, b.storage_key AS "storageKey"`;
  const byStore = new Map<string, string[]>();
  for (const blob of blobs) byStore.set(blob.store, [...(byStore.get(blob.store) ?? []), blob.storageKey]);
  for (const [store, keys] of byStore) await stores.of(store).remove(keys);
  return purged.length;
}
