/**
 * How the pipeline stages a multipart request's files (http/multipart-body.ts): each file's bytes
 * go to the configured store under a fresh key, recorded in `document_uploads` first (committed on
 * its own), so that bytes nobody keeps can always be found and deleted: by the request itself when
 * it ends, or by housekeeping when its process stopped first (document-housekeeping.ts). A write
 * keeps a file by deleting its record in the write's own transaction (document-repository.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Database } from '../../database/prisma-client';
import type { StagedBytes, UploadStaging } from '../../http/multipart-body';
import { documentTypeOf, SNIFF_BYTES } from './content-types';
import { spentQuotaRefusal } from './document-quota';
import type { DocumentStores } from './document-store';
import { cleanFileName } from './file-names';

/** Each file at most 10 MB, the whole request at most 55 MB (the contract's limits). */
export const FILE_BYTES = 10 * 1024 * 1024;
export const REQUEST_BYTES = 55 * 1024 * 1024;

/** `bytesPerDay`: the agencies' daily quota, checked before a request's bytes are read. */
export function uploadStaging(db: Database, stores: DocumentStores, bytesPerDay: number): UploadStaging {
  return {
    refusalBeforeReading: (companyId) => spentQuotaRefusal(db, companyId, bytesPerDay),
    fileBytes: FILE_BYTES,
    requestBytes: REQUEST_BYTES,
    sniffBytes: SNIFF_BYTES,
    typeOf: documentTypeOf,
    fileName: cleanFileName,
    async begin(companyId) {
      const store = stores.current;
      const staged = { key: newStorageKey(companyId), store: store.name };
      await db.documentUpload.create({ data: { storageKey: staged.key, companyId, store: store.name } });
      const writer = store.writer(staged.key);
      return { staged, write: (chunk) => writer.write(chunk), end: () => writer.end(), abort: () => writer.abort() };
    },
    discard: (staged) =>
      discardUploads(
        db,
        stores,
        staged.map((file) => file.key),
      ),
  };
}

/** A key no two uploads share; it says whose bytes they are to an operator browsing the bucket, nothing more. */
export function newStorageKey(companyId: string): string {
  return `documents/${encodeURIComponent(companyId)}/${randomUUID()}`;
}

/**
 * Deletes the bytes of these storage keys that are still only staged (a committed write deleted
 * the records of the ones it kept), then their records.
 */
export async function discardUploads(db: Database, stores: DocumentStores, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  const left = await db.documentUpload.findMany({ where: { storageKey: { in: [...keys] } } });
  const byStore = new Map<string, string[]>();
  for (const upload of left) byStore.set(upload.store, [...(byStore.get(upload.store) ?? []), upload.storageKey]);
  for (const [store, storeKeys] of byStore) await stores.of(store).remove(storeKeys);
  await db.documentUpload.deleteMany({ where: { storageKey: { in: left.map((upload) => upload.storageKey) } } });
}

export type { StagedBytes };
