/**
 * The back office's view of webhook endpoints, any agency (back-office API and admin tool): list an
 * agency's endpoints, an endpoint's deliveries, and disable an endpoint (audited).
 */
import { recordAudit, type AuditActor } from '../auth/audit-log';
import type { Queryable } from '../database/prisma-client';
import { NotFound } from '../errors';
import type { WebhookEndpoint } from '../generated/prisma/client';
import { deliveryPage, endpointPage, type Page } from './webhook-pages';

/** An agency's endpoints, as its partners list them. */
export const agencyEndpoints = endpointPage;

export async function endpointDeliveries(db: Queryable, endpointId: string, page: Page) {
  if (!(await db.webhookEndpoint.findUnique({ where: { id: endpointId }, select: { id: true } }))) throw new NotFound('Webhook endpoint not found.');
  return deliveryPage(db, { endpointId }, page);
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
