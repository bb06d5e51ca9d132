/** Documents of a guarantee (issue 35): attach (multipart), list, download. */
import { halPage, pageRequest } from '../http/paging';
import { toDocument, toHistoryEntry, guaranteeId } from '../guarantees/guarantee-mapper';
import { defineOperation } from './partner-work';
import { documentId } from '../guarantees/documents/document-id';

export const documentOperations = [
  defineOperation('attachRentalInsuranceDocuments', {
    handler: async ({ params, body }, work) => {
      const entry = await work.documents.attach(guaranteeId(params.id), body.file, body.comment);
      return { status: 201, body: toHistoryEntry(entry), effects: [] };
    },
  }),

  defineOperation('listRentalInsuranceDocuments', {
    handler: async ({ params, query }, work, request) => {
      const page = pageRequest(query, request);
      const { rows, total } = await work.documents.page(guaranteeId(params.id), page);
      return { status: 200, body: halPage(request, 'documents', rows.map(toDocument), total, page) };
    },
  }),

  defineOperation('getRentalInsuranceDocument', {
    handler: async ({ params }, work) => work.documents.download(guaranteeId(params.id), documentId(params.documentId)),
  }),
];
