/**
 * The two statements of a delivery attempt (Prisma's tagged raw SQL: every event's delivery runs
 * them, and the model API would take six round trips and an interactive transaction where these
 * take two, see bench/results.md): read the delivery with its endpoint and event, then record the
 * attempt and all it implies in ONE statement, so it is atomic without a transaction: the attempt,
 * the delivery's new status, the endpoint starting or stopping failing (or disabled), and the
 * retry's job.
 */
import type { Database } from '../database/prisma-client';
import { Prisma } from '../generated/prisma/client';
import type { EventRow } from '../events/event-envelope';
import { pacingAssignments } from './delivery-pacing';
import { deliveryJobCtes } from './delivery-queue';
import { ownerMayRead } from '../events/outbox';

export interface DeliveryToAttempt {
  id: string;
  status: string;
  endpointId: string;
  url: string;
  enabled: boolean;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  failingSince: Date | null;
  unansweredInRow: number;
  attemptsMade: number;
  /** The endpoint's credential is not revoked and may still read the event's resource (event-scopes.ts). */
  ownerMayRead: boolean;
  event: EventRow;
}

type Joined = Omit<DeliveryToAttempt, 'event'> & EventRow & { eventId: string };

export async function readDelivery(db: Database, deliveryId: string): Promise<DeliveryToAttempt | undefined> {
  const [row] = await db.$queryRaw<Joined[]>`
    SELECT d.id, d.status, d.endpoint_id AS "endpointId", e.url, e.enabled, e.secret, e.previous_secret AS "previousSecret",
           e.previous_secret_expires_at AS "previousSecretExpiresAt", e.failing_since AS "failingSince", e.unanswered_in_row AS "unansweredInRow",
           (SELECT count(*)::int FROM webhook_attempts a WHERE a.delivery_id = d.id) AS "attemptsMade",
           ${ownerMayRead('c', 'v.type')} AS "ownerMayRead",
           v.id AS "eventId", v.tx_id AS "txId", v.position, v.company_id AS "companyId", v.type, v.occurred_at AS "occurredAt", v.data
    FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id JOIN events v ON v.id = d.event_id
    JOIN credentials c ON c.id = e.credential_id
    WHERE d.id = ${deliveryId}::uuid`;
  if (!row) return undefined;
  const { eventId, txId, position, companyId, type, occurredAt, data, ...delivery } = row;
  return { ...delivery, event: { id: eventId, txId, position, companyId, type, occurredAt, data } };
}

export interface AttemptRecord {
  deliveryId: string;
  endpointId: string;
  responseStatus: number | null;
  latencyMs: number;
  error: string | null;
  /** The delivery's status after this attempt. */
  status: 'succeeded' | 'pending' | 'failed';
  /** When the next attempt runs (a retry is queued), or null. */
  nextAttemptAt: Date | null;
  /** The endpoint's row is written only when it starts or stops failing, or is disabled. */
  endpointChange: { failingSince: Date | null; disabledReason: string | null } | null;
  /** The endpoint's count of unanswered attempts in a row (delivery-pacing.ts): one more, back to none, or unchanged. */
  pacing: 'add' | 'reset' | null;
}

export async function recordAttempt(db: Database, attempt: AttemptRecord): Promise<void> {
  const change = attempt.endpointChange;
  await db.$queryRaw`
    WITH attempt AS (
      INSERT INTO webhook_attempts (delivery_id, response_status, latency_ms, error)
      VALUES (${attempt.deliveryId}::uuid, ${attempt.responseStatus}::int, ${attempt.latencyMs}::int, ${attempt.error})
    ), delivery AS (
      UPDATE webhook_deliveries SET status = ${attempt.status}, next_attempt_at = ${attempt.nextAttemptAt}::timestamptz
      WHERE id = ${attempt.deliveryId}::uuid
    ), endpoint AS (
      UPDATE webhook_endpoints
      SET failing_since = CASE WHEN ${change !== null}::boolean THEN ${change?.failingSince ?? null}::timestamptz ELSE failing_since END,
          enabled = enabled AND ${change?.disabledReason ?? null}::text IS NULL,
          disabled_reason = COALESCE(${change?.disabledReason ?? null}::text, disabled_reason)${pacingAssignments(attempt.pacing)}
      WHERE id = ${attempt.endpointId}::uuid AND ${change !== null || attempt.pacing !== null}::boolean
    )${attempt.nextAttemptAt ? Prisma.sql`, ${deliveryJobCtes(attempt.deliveryId, attempt.nextAttemptAt, 'retry')}` : Prisma.empty}
    SELECT 1`;
}

/** A delivery whose endpoint was disabled before its attempt came: it ends as failed. */
export async function failDelivery(db: Database, deliveryId: string): Promise<void> {
  await db.webhookDelivery.update({ where: { id: deliveryId }, data: { status: 'failed', nextAttemptAt: null } });
}
