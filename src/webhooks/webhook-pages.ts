/**
 * Pages of webhook endpoints and deliveries, shared by the partner API (scoped to the principal's
 * company) and the back office (any agency). The count comes first, so a page past the end is
 * never read.
 */
import type { Queryable } from '../database/prisma-client';

export type Page = { offset: number; size: number };

/** A delivery with its attempts (oldest first) and its event's type: what every delivery view shows. */
export const DELIVERY_INCLUDE = { attempts: { orderBy: { id: 'asc' as const } }, event: { select: { type: true } } };

export async function endpointPage(db: Queryable, companyId: string, page: Page) {
  const where = { companyId };
  const total = await db.webhookEndpoint.count({ where });
  const rows =
    page.offset < total
      ? await db.webhookEndpoint.findMany({ where, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], skip: page.offset, take: page.size })
      : [];
  return { rows, total };
}

/** The endpoint's deliveries, newest first (`companyId` too when the caller is a partner). */
export async function deliveryPage(db: Queryable, where: { endpointId: string; companyId?: string }, page: Page) {
  const total = await db.webhookDelivery.count({ where });
  const rows =
    page.offset < total
      ? await db.webhookDelivery.findMany({
          where,
          include: DELIVERY_INCLUDE,
          orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
          skip: page.offset,
          take: page.size,
        })
      : [];
  return { rows, total };
}
