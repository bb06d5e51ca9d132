/**
 * The back office's view of webhook endpoints, any agency (operations API and admin tool): list an
 * agency's endpoints, an endpoint's deliveries, and disable an endpoint (audited).
 */
import { recordAudit, type AuditActor } from '../auth/audit-log';
import type { Queryable } from '../database/prisma-client';
import { NotFound } from '../errors';
import type { WebhookEndpoint } from '../generated/prisma/client';

type Page = { offset: number; size: number };

export async function agencyEndpoints(db: Queryable, companyId: string, page: Page) {
  const total = await db.webhookEndpoint.count({ where: { companyId } });
  const rows =
    page.offset < total
      ? await db.webhookEndpoint.findMany({
          where: { companyId },
          orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
          skip: page.offset,
          take: page.size,
        })
      : [];
  return { rows, total };
}

export async function endpointDeliveries(db: Queryable, endpointId: string, page: Page) {
  if (!(await db.webhookEndpoint.findUnique({ where: { id: endpointId }, select: { id: true } }))) throw new NotFound('Webhook endpoint not found.');
  const total = await db.webhookDelivery.count({ where: { endpointId } });
  const rows =
    page.offset < total
      ? await db.webhookDelivery.findMany({
          where: { endpointId },
          include: { attempts: { orderBy: { id: 'asc' } }, event: { select: { type: true } } },
          orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
          skip: page.offset,
          take: page.size,
        })
      : [];
  return { rows, total };
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
