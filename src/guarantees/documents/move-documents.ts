/**
 * Moves documents' bytes from one store to the other (`documents move` of the admin tool), while
 * the service runs: every blob row says where its bytes are, and reads follow the row
 * (docs/documents.md, "Moving documents from one store to the other").
 *
 * For each blob of the source store, its bytes are streamed from the source to the target under
 * the same key (a chunk at a time, never a whole document in memory), their SHA-256 and size
 * checked against the row, and only then the row switched, by a statement that names the row's
 * old store and key: a blob that retention deleted meanwhile switches nothing, and its copy is
 * removed. The old copies are deleted last, once every row of the run points to the target, so a
 * download that started on the old copy finishes on it. A run that stops half-way leaves rows on
 * the old store, whose bytes are still there: running it again resumes (a partial copy under the
 * same key in the target is cleared before the copy).
 */
import { createHash } from 'node:crypto';
import type { Database } from '../../database/prisma-client';
import type { DocumentStores, StoreName } from './document-store';

const BATCH = 100;

export interface MoveFailure {
  companyId: string;
  sha256: string;
  reason: string;
}

export interface MoveReport {
  from: StoreName;
  to: StoreName;
  moved: number;
  bytes: number;
  /** Blobs left in the source store, with why (their rows and bytes unchanged). */
  failed: MoveFailure[];
}

interface BlobRow {
  companyId: string;
  sha256: string;
  size: bigint;
  storageKey: string;
}

export function otherStore(name: StoreName): StoreName {
  return name === 's3' ? 'postgres' : 's3';
}

export async function moveDocuments(db: Database, stores: DocumentStores, to: StoreName): Promise<MoveReport> {
  const from = otherStore(to);
  const [source, target] = [stores.of(from), stores.of(to)];
  const report: MoveReport = { from, to, moved: 0, bytes: 0, failed: [] };
  const oldCopies: string[] = [];
  let after: { companyId: string; sha256: string } | undefined;
  for (;;) {
    const batch = await db.$queryRaw<BlobRow[]>`
      SELECT company_id AS "companyId", sha256, size, storage_key AS "storageKey" FROM document_blobs
      WHERE store = ${from} AND (company_id, sha256) > (${after?.companyId ?? ''}, ${after?.sha256 ?? ''})
      ORDER BY company_id, sha256 LIMIT ${BATCH}`;
    if (batch.length === 0) break;
    for (const blob of batch) {
      const problem = await copyBlob(stores, from, to, blob);
      if (problem) {
        report.failed.push({ companyId: blob.companyId, sha256: blob.sha256, reason: problem });
        continue;
      }
      const switched = await db.$executeRaw`
        UPDATE document_blobs SET store = ${to}
        WHERE company_id = ${blob.companyId} AND sha256 = ${blob.sha256} AND store = ${from} AND storage_key = ${blob.storageKey}`;
      if (switched === 0) {
        // Deleted (retention) or moved by someone else meanwhile: the copy is nobody's.
        if (!(await keyInUse(db, to, blob.storageKey))) await target.remove([blob.storageKey]);
        continue;
      }
      report.moved += 1;
      report.bytes += Number(blob.size);
      oldCopies.push(blob.storageKey);
    }
    const last = batch.at(-1)!;
    after = { companyId: last.companyId, sha256: last.sha256 };
  }
  for (let start = 0; start < oldCopies.length; start += BATCH) await source.remove(oldCopies.slice(start, start + BATCH));
  return report;
}

/** The blob's bytes copied to the target under its key and checked; the reason it was not, otherwise. */
async function copyBlob(stores: DocumentStores, from: StoreName, to: StoreName, blob: BlobRow): Promise<string | undefined> {
  const target = stores.of(to);
  // What an interrupted run may have left under this key (no row names it in the target yet).
  await target.remove([blob.storageKey]);
  const writer = target.writer(blob.storageKey);
  const digest = createHash('sha256');
  let size = 0;
  try {
    for await (const chunk of await stores.of(from).open(blob.storageKey, Number(blob.size))) {
      const bytes = chunk as Buffer;
      digest.update(bytes);
      size += bytes.length;
      await writer.write(bytes);
    }
    const sha256 = digest.digest('hex');
    if (sha256 !== blob.sha256 || size !== Number(blob.size)) {
      await writer.abort();
      await target.remove([blob.storageKey]);
      return `the stored bytes do not match the row (${size} bytes, SHA-256 ${sha256})`;
    }
    await writer.end();
    return undefined;
  } catch (error) {
    await writer.abort().catch(() => undefined);
    await target.remove([blob.storageKey]).catch(() => undefined);
    return error instanceof Error ? error.message : String(error);
  }
}

async function keyInUse(db: Database, store: StoreName, key: string): Promise<boolean> {
  return (await db.documentBlob.count({ where: { store, storageKey: key } })) > 0;
}
