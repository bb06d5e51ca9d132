/**
 * Pages of webhook endpoints, deliveries and attempts, shared by the partner API (scoped to the
 * principal's company) and the back office (any agency). The count comes first, so a page past the
 * end is never read. A delivery embeds only its latest EMBEDDED_ATTEMPTS attempts, read per
 * delivery with LIMIT (issue 23: a delivery with 100,000 attempts once exhausted the heap when
 * every attempt of every listed delivery was read); its attempts are paged on their own.
 */
import type { Queryable } from '../database/prisma-client';
import type { Prisma, WebhookAttempt, WebhookDelivery } from '../generated/prisma/client';

export type Page = { offset: number; size: number };

/** Attempts a delivery view embeds (the latest ones), as openapi/partner.yaml declares. */
export const EMBEDDED_ATTEMPTS = 20;
/** Attempts a delivery may have, scheduled retries and redeliveries together (`409 redelivery_limit_reached` beyond). */
export const MAX_ATTEMPTS_PER_DELIVERY = 50;

export type AttemptView = Pick<WebhookAttempt, 'attemptedAt' | 'responseStatus' | 'latencyMs' | 'error' | 'state'>;
export type DeliveryRow = WebhookDelivery & { event: { type: string }; attempts: AttemptView[]; attemptCount: number };

const WITH_EVENT_TYPE = { event: { select: { type: true } } };

export async function endpointPage(db: Queryable, companyId: string, page: Page) {
  const where = { companyId };
  const total = await db.webhookEndpoint.count({ where });
  const rows =
    page.offset < total
      ? await db.webhookEndpoint.findMany({ where, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], skip: page.offset, take: page.size })
      : [];
  return { rows, total };
}

/** The endpoint's deliveries, newest first (`companyId` too when the caller is a partner; `status`: the director's failed ones, issue 37). */
export async function deliveryPage(db: Queryable, filter: { endpointId: string; companyId?: string; status?: string }, page: Page) {
  const { status, ...scope } = filter;
  const where = status === undefined ? scope : { ...scope, status };
  const total = await db.webhookDelivery.count({ where });
  const rows =
    page.offset < total
      ? await db.webhookDelivery.findMany({
          where,
          include: WITH_EVENT_TYPE,
          orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
          skip: page.offset,
          take: page.size,
        })
      : [];
  return { rows: await withLatestAttempts(db, rows), total };
}

/** One delivery with its latest attempts, or null. */
export async function findDelivery(db: Queryable, where: Prisma.WebhookDeliveryWhereInput): Promise<DeliveryRow | null> {
  const row = await db.webhookDelivery.findFirst({ where, include: WITH_EVENT_TYPE });
  return row ? (await withLatestAttempts(db, [row]))[0]! : null;
}

/** A delivery's attempts, oldest first. */
export async function attemptPage(db: Queryable, deliveryId: string, page: Page) {
  const where = { deliveryId };
  const total = await db.webhookAttempt.count({ where });
  const rows = page.offset < total ? await db.webhookAttempt.findMany({ where, orderBy: { id: 'asc' }, skip: page.offset, take: page.size }) : [];
  return { rows, total };
}

type LatestAttempt = AttemptView & { deliveryId: string; attemptCount: number; id: bigint | null };

/** Each delivery's attempt count and latest EMBEDDED_ATTEMPTS attempts (oldest first), in one statement. */
async function withLatestAttempts(db: Queryable, deliveries: Array<WebhookDelivery & { event: { type: string } }>): Promise<DeliveryRow[]> {
  if (deliveries.length === 0) return [];
  const ids = deliveries.map((delivery) => delivery.id);
  const rows = await db.$queryRaw<LatestAttempt[]>`
    SELECT d.id::text AS "deliveryId", c.n AS "attemptCount", a.id, a.attempted_at AS "attemptedAt",
           a.response_status AS "responseStatus", a.latency_ms AS "latencyMs", a.error, a.state
    FROM unnest(${ids}::uuid[]) AS d(id)
    CROSS JOIN LATERAL (SELECT count(*)::int AS n FROM webhook_attempts WHERE delivery_id = d.id) c
    LEFT JOIN LATERAL (
      SELECT id, attempted_at, response_status, latency_ms, error, state FROM webhook_attempts
      WHERE delivery_id = d.id ORDER BY id DESC LIMIT ${EMBEDDED_ATTEMPTS}
    ) a ON true
    ORDER BY d.id, a.id`;
  const byDelivery = new Map<string, { attemptCount: number; attempts: AttemptView[] }>();
  for (const row of rows) {
    const entry = byDelivery.get(row.deliveryId) ?? { attemptCount: row.attemptCount, attempts: [] };
    if (row.id !== null) {
      const { attemptedAt, responseStatus, latencyMs, error, state } = row;
      entry.attempts.push({ attemptedAt, responseStatus, latencyMs, error, state });
    }
    byDelivery.set(row.deliveryId, entry);
  }
  return deliveries.map((delivery) => ({ ...delivery, ...(byDelivery.get(delivery.id) ?? { attemptCount: 0, attempts: [] }) }));
}
