/** The reviewers' desk (issue 37): the review queue, oldest first (staff, ops:guarantees:review). */
import { decimalToNumber, toTimestamp } from '../../database/column-values';
import { halPage, pageRequest } from '../../http/paging';
import { reviewQueue } from '../review-queue';
import { defineOperation, SCOPE } from './back-office-work';

export const deskOperations = [
  defineOperation('listReviewQueue', {
    handler: async ({ query }, work, request) => {
      work.operator('staff', SCOPE.review);
      const page = pageRequest(query, request);
      const { rows, total } = await reviewQueue(work.db, { companyId: query.companyId, status: query.status }, page);
      const items = rows.map((row) => ({
        id: Number(row.id),
        companyId: row.companyId,
        externalId: row.externalId,
        status: row.status as 'under_review' | 'information_requested',
        tenantName: row.tenantName,
        rentalAmount: decimalToNumber(row.rentalAmount)!,
        createdAt: toTimestamp(row.createdAt)!,
        waitingSince: toTimestamp(row.updatedAt)!,
      }));
      return { status: 200, body: halPage(request, 'reviewQueue', items, total, page) };
    },
  }),
];
