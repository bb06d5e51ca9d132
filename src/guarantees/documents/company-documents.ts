/**
 * A partner's documents: attach, list and download, scoped to the company of the request's
 * principal and signed by its credential, like its guarantees (guarantees/company-guarantees.ts).
 */
import type { UnitOfWork } from '../../database/unit-of-work';
import { NotFound, rentalInsuranceNotFound } from '../../errors';
import { guaranteeStatus, lockGuarantee } from '../guarantee-repository';
import type { Actor } from '../../auth/actors';
import type { UploadedFile } from '../../http/multipart-body';
import { attachDocuments } from './attach-documents';
import { downloadOf } from './document-download';
import { documentPage, findStoredDocument, type KeptBytes } from './document-repository';
import type { DocumentServices } from './document-services';

type Page = { offset: number; size: number };

/** What a write keeps of an uploaded file. */
export const keptBytesOf = (file: UploadedFile): KeptBytes => ({
  fileName: file.fileName,
  contentType: file.contentType,
  size: file.size,
  sha256: file.sha256,
  staged: file.staged,
});

/** A comment sent with documents, trimmed; none when absent. */
export const commentOf = (comment: string | undefined): string | null => comment?.trim() || null;

export const documentNotFound = (): NotFound => new NotFound('Document not found.');

export function companyDocuments(unit: UnitOfWork, companyId: string, actor: Actor, services: DocumentServices) {
  const { db } = unit;
  return {
    /** One history entry holding the files (locked guarantee: its document limit holds under concurrent uploads). */
    attach: async (id: bigint, files: readonly UploadedFile[], comment: string | undefined) => {
      const guarantee = (await lockGuarantee(db, companyId, id)) ?? notFound();
      return attachDocuments(unit, guarantee, actor, { files: files.map(keptBytesOf), rules: services.rules }, commentOf(comment));
    },
    page: async (id: bigint, page: Page) => documentPage(db, ((await guaranteeStatus(db, companyId, id)) ?? notFound()).id, page),
    download: async (id: bigint, documentId: bigint) => {
      const document = await findStoredDocument(db, companyId, id, documentId);
      if (!document) throw (await guaranteeStatus(db, companyId, id)) ? documentNotFound() : rentalInsuranceNotFound();
      return downloadOf(document, services.stores);
    },
  };
}

export type CompanyDocuments = ReturnType<typeof companyDocuments>;

function notFound(): never {
  throw rentalInsuranceNotFound();
}
