/**
 * The back office's view of webhook endpoints, any agency (back-office API and admin tool): list an
 * agency's endpoints, an endpoint's deliveries, and disable an endpoint (audited).
 */
import { recordAudit, type AuditActor } from '../auth/audit-log';
import type { Queryable } from '../database/prisma-client';
import { NotFound } from '../errors';
import type { WebhookEndpoint } from '../generated/prisma/client';
import { attemptPage, deliveryPage, endpointPage, type Page } from './webhook-pages';

/** An agency's endpoints, as its partners list them. */
export const agencyEndpoints = endpointPage;

export async function endpointDeliveries(db: Queryable, endpointId: string, page: Page) {
  if (!(await db.webhookEndpoint.findUnique({ where: { id: endpointId }, select: { id: true } }))) throw new NotFound('Webhook endpoint not found.');
  return deliveryPage(db, { endpointId }, page);
}

/** A delivery's attempts, oldest first; 404 unless the delivery is the endpoint's. */
export async function deliveryAttempts(db: Queryable, endpointId: string, deliveryId: string, page: Page) {
  const found = await db.webhookDelivery.findFirst({ where: { id: deliveryId, endpointId }, select: { id: true } });
  if (!found) throw new NotFound('Webhook delivery not found.');
  return attemptPage(db, found.id, page);
}

/** Disables the endpoint (`operator`); its pending deliveries end as failed when their attempt comes. */
export async function disableEndpoint(db: Queryable, endpointId: string, actor: AuditActor): Promise<WebhookEndpoint> {
  await db.$queryRaw`SELECT 1 FROM webhook_endpoints WHERE id = ${endpointId}::uuid FOR UPDATE`;
  const current = await db.webhookEndpoint.findUnique({ where: { id: endpointId } });
  if (!current) throw new NotFound('Webhook endpoint not found.');
  if (!current.enabled) return current;
  const row = await db.webhookEndpoint.update({
    where: { id: endpointId },
    data: { enabled: false, disabledReason: 'operator', version: { increment: 1 }, updatedAt: new Date() },
  });
  await recordAudit(db, { actor, action: 'webhook_endpoint.disabled', companyId: row.companyId, details: { endpointId, url: row.url } });
  return row;
}
