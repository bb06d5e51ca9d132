/**
 * A partner's webhook endpoints and their deliveries, scoped to the company of the request's
 * principal. Every write runs in the pipeline's transaction (idempotency), so a test event or a
 * redelivery is queued exactly when the write commits.
 */
import { randomUUID } from 'node:crypto';
import type { UnitOfWork } from '../database/unit-of-work';
import type { Principal } from '../auth/principal';
import { Conflict, NotFound, ValidationFailed } from '../errors';
import { unreadableTypes } from '../events/event-scopes';
import { writeTestEventNow } from '../events/outbox';
import { deliveryJobCtes } from '../job-queue/delivery-queue';
import { TEST_EVENT_TYPE } from '../events/event-types';
import type { components } from '../generated/partner-api';
import type { WebhookEndpoint } from '../generated/prisma/client';
import { endPacing } from './delivery-pacing';
import { redeliverFailed, type FailedRange } from './failed-redelivery';
import { newWebhookSecret, type SecretBox } from './secret-box';
import { assertDeliverableUrl, type UrlPolicy } from './url-safety';
import { attemptPage, deliveryPage, endpointPage, findDelivery, MAX_ATTEMPTS_PER_DELIVERY, type Page } from './webhook-pages';

type Schemas = components['schemas'];

export const MAX_ENDPOINTS_PER_AGENCY = 10;
/** How long a rotated-out secret still signs. */
export const PREVIOUS_SECRET_HOURS = 24;

export interface WebhookRules {
  box: SecretBox;
  policy: UrlPolicy;
}

const endpointNotFound = () => new NotFound('Webhook endpoint not found.');

/**
 * An endpoint belongs to the credential that registered it, or last set its URL or event types
 * (`credential_id`): its deliveries stop when that credential is revoked or loses a scope the
 * events need (src/events/event-scopes.ts). Any credential of the agency with ri:webhooks:manage
 * manages every endpoint of the agency, but may point one at a URL or subscribe it to event types
 * only when its token may read every type the endpoint then receives; doing so makes it the owner.
 */
function assertReadable(eventTypes: readonly string[], scopes: readonly string[]): void {
  const problems = unreadableTypes(eventTypes, scopes);
  if (problems.length > 0) {
    throw new ValidationFailed(
      problems,
      'This token may not read every event type of the endpoint (see Webhooks: who receives what).',
      'event_type_not_readable',
    );
  }
}

export function companyWebhooks(unit: UnitOfWork, principal: Pick<Principal, 'companyId' | 'credentialId' | 'scopes'>, rules: WebhookRules) {
  const { companyId } = principal;
  const { db } = unit;
  const find = async (id: string): Promise<WebhookEndpoint> =>
    (await db.webhookEndpoint.findFirst({ where: { id, companyId } })) ?? Promise.reject(endpointNotFound());
  const delivery = async (endpointId: string, deliveryId: string) =>
    (await findDelivery(db, { id: deliveryId, endpointId, companyId })) ?? Promise.reject(new NotFound('Webhook delivery not found.'));
  return {
    find,
    list: (page: Page) => endpointPage(db, companyId, page),
    /** The endpoint a PATCH changes, locked until the write's transaction ends (the precondition of If-Match). */
    lock: async (id: string): Promise<WebhookEndpoint> => {
      await db.$queryRaw`SELECT 1 FROM webhook_endpoints WHERE id = ${id}::uuid AND company_id = ${companyId} FOR UPDATE`;
      return find(id);
    },
    /** The URL's text and its host's addresses (DNS): run before the write's transaction (checkBefore). */
    checkUrl: (url: string) => assertDeliverableUrl(url, rules.policy),
    /** The URL was checked by checkUrl before the transaction began. */
    create: async (body: Schemas['WebhookEndpointCreate']) => {
      assertReadable(body.eventTypes, principal.scopes);
      await db.$queryRaw`SELECT pg_advisory_xact_lock(hashtext('webhook_endpoints:' || ${companyId}))::text`;
      if ((await db.webhookEndpoint.count({ where: { companyId } })) >= MAX_ENDPOINTS_PER_AGENCY) {
        throw new Conflict('webhook_endpoint_limit', `The agency already has ${MAX_ENDPOINTS_PER_AGENCY} webhook endpoints.`);
      }
      const secret = newWebhookSecret();
      const row = await db.webhookEndpoint.create({
        data: {
          id: randomUUID(),
          companyId,
          credentialId: principal.credentialId,
          url: body.url,
          description: body.description ?? null,
          eventTypes: [...body.eventTypes],
          secret: rules.box.seal(secret),
        },
      });
      return { row, secret };
    },
    patch: async (current: WebhookEndpoint, body: Schemas['WebhookEndpointPatch']) => {
      const redirecting = body.url !== undefined || body.eventTypes !== undefined;
      if (redirecting) assertReadable(body.eventTypes ?? current.eventTypes, principal.scopes);
      const enabling = body.enabled === true && !current.enabled;
      // A new address or a fresh start: the old one's silence no longer paces the endpoint.
      if (enabling || (body.url !== undefined && body.url !== current.url)) await endPacing(db, current.id);
      return db.webhookEndpoint.update({
        where: { id: current.id },
        data: {
          ...(body.url !== undefined ? { url: body.url } : {}),
          ...(body.description !== undefined ? { description: body.description } : {}),
          ...(body.eventTypes !== undefined ? { eventTypes: [...body.eventTypes] } : {}),
          ...(redirecting ? { credentialId: principal.credentialId } : {}),
          ...(body.enabled === false && current.enabled ? { enabled: false, disabledReason: 'partner' } : {}),
          ...(enabling ? { enabled: true, disabledReason: null, failingSince: null } : {}),
          version: { increment: 1 },
          updatedAt: new Date(),
        },
      });
    },
    remove: async (id: string) => {
      const { count } = await db.webhookEndpoint.deleteMany({ where: { id, companyId } });
      if (count === 0) throw endpointNotFound();
    },
    rotate: async (id: string) => {
      // Locked: two rotations at once apply one after the other, so each secret shown signs (the
      // second keeps the first's as its previous one) and no answer names a secret that never signs.
      await db.$queryRaw`SELECT 1 FROM webhook_endpoints WHERE id = ${id}::uuid AND company_id = ${companyId} FOR UPDATE`;
      const current = await find(id);
      const secret = newWebhookSecret();
      const row = await db.webhookEndpoint.update({
        where: { id: current.id },
        data: {
          secret: rules.box.seal(secret),
          previousSecret: current.secret,
          previousSecretExpiresAt: new Date(Date.now() + PREVIOUS_SECRET_HOURS * 3_600_000),
          version: { increment: 1 },
          updatedAt: new Date(),
        },
      });
      return { row, secret };
    },
    sendTest: async (id: string) => {
      const endpoint = await find(id);
      const data = { endpointId: endpoint.id, message: 'A test event sent by POST /v1/webhook-endpoints/{endpointId}/test.' };
      const eventId = await writeTestEventNow(unit, { companyId, type: TEST_EVENT_TYPE, data }, endpoint.id);
      return (await findDelivery(db, { eventId, endpointId: endpoint.id }))!;
    },
    deliveries: async (id: string, page: Page) => {
      const endpoint = await find(id);
      return deliveryPage(db, { endpointId: endpoint.id, companyId }, page);
    },
    attempts: async (endpointId: string, deliveryId: string, page: Page) => {
      const found = await delivery(endpointId, deliveryId);
      return attemptPage(db, found.id, page);
    },
    redeliver: async (endpointId: string, deliveryId: string) => {
      // Locked, so that two redeliveries at once cannot both pass the cap below.
      await db.$queryRaw`SELECT 1 FROM webhook_deliveries WHERE id = ${deliveryId}::uuid AND endpoint_id = ${endpointId}::uuid AND company_id = ${companyId} FOR UPDATE`;
      const found = await delivery(endpointId, deliveryId);
      if (found.attemptCount >= MAX_ATTEMPTS_PER_DELIVERY) {
        throw new Conflict(
          'redelivery_limit_reached',
          `This delivery already has ${MAX_ATTEMPTS_PER_DELIVERY} attempts; read the event from GET /v1/events instead.`,
        );
      }
      const now = new Date();
      await db.webhookDelivery.update({ where: { id: found.id }, data: { status: 'pending', nextAttemptAt: now } });
      // Its next attempt, queued in this transaction; a queued attempt not yet started is moved forward instead.
      await db.$executeRaw`WITH ${deliveryJobCtes(found.id, now)} SELECT 1`;
      return { ...found, status: 'pending', nextAttemptAt: now };
    },
    /** Every failed delivery of the endpoint in `range`, queued again (failed-redelivery.ts). */
    redeliverFailed: async (endpointId: string, range: FailedRange) => {
      // Locked: two bulk redeliveries of one endpoint run one after the other, and a disabling PATCH waits.
      await db.$queryRaw`SELECT 1 FROM webhook_endpoints WHERE id = ${endpointId}::uuid AND company_id = ${companyId} FOR UPDATE`;
      const endpoint = await find(endpointId);
      if (!endpoint.enabled) {
        throw new Conflict(
          'webhook_endpoint_disabled',
          'The endpoint is disabled; enable it (PATCH enabled: true) before redelivering its failed deliveries.',
        );
      }
      return redeliverFailed(db, endpoint.id, range);
    },
  };
}

export type CompanyWebhooks = ReturnType<typeof companyWebhooks>;
