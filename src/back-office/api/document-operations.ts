/** Reviewers' documents (issue 35): attach to any agency's guarantee, list and download its documents. */
import { attachDocuments } from '../../guarantees/documents/attach-documents';
import { commentOf, documentNotFound, keptBytesOf } from '../../guarantees/documents/company-documents';
import { downloadOf } from '../../guarantees/documents/document-download';
import { toDocument, toHistoryEntry, guaranteeId } from '../../guarantees/guarantee-mapper';
import { documentPage, findStoredDocument } from '../../guarantees/documents/document-repository';
import { halPage, pageRequest } from '../../http/paging';
import { documentId } from '../../guarantees/documents/document-id';
import { lockForReview } from '../../guarantees/transitions/review-actions';
import { defineOperation, SCOPE } from './back-office-work';
import { findAnyGuarantee } from '../../guarantees/transitions/review-service';

export const staffDocumentOperations = [
  defineOperation('attachStaffDocuments', {
    handler: async ({ params, body }, work) => {
      const staff = work.operator('staff', SCOPE.review);
      const guarantee = await lockForReview(work.db, guaranteeId(params.id));
      const sent = { files: body.file.map(keptBytesOf), rules: work.documents.rules };
      const entry = await attachDocuments(work.unit, guarantee, staff.actor, sent, commentOf(body.comment));
      return { status: 201, body: toHistoryEntry(entry), effects: [] };
    },
  }),

  defineOperation('listRentalInsuranceDocumentsForReview', {
    handler: async ({ params, query }, work, request) => {
      work.operator('staff', SCOPE.review);
      const guarantee = await findAnyGuarantee(work.db, guaranteeId(params.id));
      const page = pageRequest(query, request);
      const { rows, total } = await documentPage(work.db, guarantee.id, page);
      return { status: 200, body: halPage(request, 'documents', rows.map(toDocument), total, page) };
    },
  }),

  defineOperation('getRentalInsuranceDocumentForReview', {
    handler: async ({ params }, work) => {
      work.operator('staff', SCOPE.review);
      const guarantee = await findAnyGuarantee(work.db, guaranteeId(params.id));
      const document = await findStoredDocument(work.db, null, guarantee.id, documentId(params.documentId));
      if (!document) throw documentNotFound();
      return downloadOf(document, work.documents.stores);
    },
  }),
];
