/**
 * The reviewers' queue (issue 37): guarantees of every agency waiting for a reviewer (under review,
 * or waiting for information the reviewer asked for), oldest first by the time they entered that
 * status (their last change), then id; optionally one agency and one status. Read from the
 * (status, updated_at, id) index.
 */
import type { Queryable } from '../database/prisma-client';
import type { Prisma } from '../generated/prisma/client';

export const WAITING_STATUSES = ['under_review', 'information_requested'] as const;
export type WaitingStatus = (typeof WAITING_STATUSES)[number];

export interface QueueFilter {
  companyId?: string;
  status?: WaitingStatus;
}

export async function reviewQueue(db: Queryable, filter: QueueFilter, page: { offset: number; size: number }) {
  const where: Prisma.RentalInsuranceWhereInput = { status: filter.status ? filter.status : { in: [...WAITING_STATUSES] } };
  if (filter.companyId !== undefined) where.companyId = filter.companyId;
  const total = await db.rentalInsurance.count({ where });
  const rows =
    page.offset < total
      ? await db.rentalInsurance.findMany({
          where,
          orderBy: [{ updatedAt: 'asc' }, { id: 'asc' }],
          skip: page.offset,
          take: page.size,
          select: {
            id: true,
            companyId: true,
            externalId: true,
            status: true,
            tenantName: true,
            rentalAmount: true,
            createdAt: true,
            updatedAt: true,
          },
        })
      : [];
  return { rows, total };
}
