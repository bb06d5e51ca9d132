/** The back office's guarantee and ledger operations (openapi/back-office.yaml). */
import type { components } from '../../generated/back-office-api';
import { toRentalInsurance, toHistoryEntry, guaranteeId } from '../../guarantees/guarantee-mapper';
import { historyPage } from '../../guarantees/history';
import { signaturePage } from '../../guarantees/signature-page';
import { halPage, pageRequest } from '../../http/paging';
import type { UploadedFile } from '../../http/multipart-body';
import type { SentDocuments } from '../../guarantees/documents/attach-documents';
import { keptBytesOf } from '../../guarantees/documents/company-documents';
import type { DocumentServices } from '../../guarantees/documents/document-services';
import { defineOperation, SCOPE, type BackOfficeWork } from './back-office-work';
import { postLedgerEntry } from './ledger-posting';
import { toPostedStatementEntry } from './mappers';
import { lockForReview, type ReviewTarget } from '../../guarantees/transitions/review-actions';
import {
  addStaffComment,
  applyCheckedReview,
  checkReviewOperation,
  findAnyGuarantee,
  type CheckedReview,
  type ReviewOperation,
} from '../../guarantees/transitions/review-service';

type Schemas = components['schemas'];

/** A multipart body's binary parts as the pipeline gives them (http/multipart-body.ts). */
type WithFiles<Body> = Omit<Body, 'file'> & { file: UploadedFile[] };

/** The files a multipart review move sends, for its history entry. */
function sentWith(body: object | undefined, documents: DocumentServices): { documents?: SentDocuments } {
  const files = (body as { file?: UploadedFile[] } | undefined)?.file;
  return files ? { documents: { files: files.map(keptBytesOf), rules: documents.rules } } : {};
}

/**
 * A review move: its input is checked (400) and the guarantee locked (404), once each, in the
 * precondition, whose version the pipeline compares with an If-Match when one is sent; then the
 * handler applies the checked move to the locked guarantee under the staff member's name.
 */
function reviewMove<Body>(operationOf: (body: Body, documents: DocumentServices) => ReviewOperation) {
  return {
    precondition: async ({ params, body }: { params: { id: number }; body: Body }, work: BackOfficeWork) => {
      work.operator('staff', SCOPE.review);
      const checked = checkReviewOperation(operationOf(body, work.documents));
      return { ...(await lockForReview(work.db, guaranteeId(params.id))), checked };
    },
    handler: async ({ current }: { current: ReviewTarget & { checked: CheckedReview } }, work: BackOfficeWork) => {
      const staff = work.operator('staff', SCOPE.review);
      const { checked, ...guarantee } = current;
      const { row, effects } = await applyCheckedReview(work.unit, guarantee, staff.actor, checked);
      return { status: 200 as const, body: toRentalInsurance(row), version: row.version, effects };
    },
  };
}

export const reviewOperations = [
  defineOperation('getRentalInsuranceForReview', {
    handler: async ({ params }, work) => {
      work.operator('staff', SCOPE.review);
      const row = await findAnyGuarantee(work.db, guaranteeId(params.id));
      return { status: 200, body: toRentalInsurance(row), version: row.version, headers: { 'Company-Id': row.companyId } };
    },
  }),
  defineOperation('listRentalInsuranceHistoryForReview', {
    handler: async ({ params, query }, work, request) => {
      work.operator('staff', SCOPE.review);
      const row = await findAnyGuarantee(work.db, guaranteeId(params.id));
      const page = pageRequest(query, request);
      const { rows, total } = await historyPage(work.db, row.id, page);
      return { status: 200, body: halPage(request, 'historyEntries', rows.map(toHistoryEntry), total, page) };
    },
  }),
  defineOperation('listRentalInsuranceSignaturesForReview', {
    handler: async ({ params, query }, work, request) => {
      work.operator('staff', SCOPE.review);
      const row = await findAnyGuarantee(work.db, guaranteeId(params.id));
      const page = pageRequest(query, request);
      const { rows, total } = await signaturePage(work.db, row.id, page);
      return { status: 200, body: halPage(request, 'signatures', rows, total, page) };
    },
  }),
  defineOperation(
    'approveRentalInsurance',
    reviewMove((terms: Schemas['ApprovalTerms']) => ({ type: 'approve', terms })),
  ),
  defineOperation(
    'declineRentalInsurance',
    reviewMove((body: Schemas['DecisionComment'] | WithFiles<Schemas['DecisionWithDocuments']> | undefined, documents) => ({
      type: 'decline',
      comment: body?.comment,
      ...sentWith(body, documents),
    })),
  ),
  defineOperation(
    'requestRentalInsuranceInformation',
    reviewMove((body: Schemas['InformationRequest'] | WithFiles<Schemas['InformationRequestWithDocuments']>, documents) => ({
      type: 'request_information',
      comment: body.comment,
      ...sentWith(body, documents),
    })),
  ),
  defineOperation(
    'markSigningEnvelopeReady',
    reviewMove(() => ({ type: 'envelope_ready' })),
  ),
  defineOperation(
    'recordSignature',
    reviewMove((body: Schemas['SignatureOutcome']) => ({ type: 'signature', role: body.role, cpfCnpj: body.cpfCnpj, outcome: body.outcome })),
  ),
  defineOperation(
    'expireRentalInsurance',
    reviewMove(() => ({ type: 'expire' })),
  ),
  defineOperation(
    'terminateRentalInsurance',
    reviewMove(() => ({ type: 'terminate' })),
  ),
  defineOperation(
    'archiveRentalInsurance',
    reviewMove(() => ({ type: 'archive' })),
  ),
  defineOperation('createStaffComment', {
    handler: async ({ params, body }, work) => {
      const staff = work.operator('staff', SCOPE.review);
      const entry = await addStaffComment(work.unit, guaranteeId(params.id), staff.actor, body.comment);
      return { status: 201, body: toHistoryEntry(entry), effects: [] };
    },
  }),
  defineOperation('postStatementEntry', {
    handler: async ({ body }, work) => {
      const staff = work.operator('staff', SCOPE.ledger);
      const posting = { companyId: body.companyId, date: body.date, type: body.type, amount: body.amount, description: body.description };
      return { status: 201, body: toPostedStatementEntry(await postLedgerEntry(work.unit, posting, staff.audit)) };
    },
  }),
];
