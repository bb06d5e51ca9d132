/**
 * The statements of a delivery attempt (Prisma's tagged raw SQL: every event's delivery runs
 * them, and the model API would take six round trips and an interactive transaction where these
 * take three, see bench/results.md): read the delivery with its endpoint and event; record the
 * attempt as started, committed BEFORE its request (attempt-outcome.ts: every request a receiver may
 * have seen has its row); then complete it with its outcome and all it implies in ONE statement, so
 * it is atomic without a transaction: the attempt, the delivery's new status, the endpoint starting
 * or stopping failing (or disabled), and the retry's job.
 */
import type { Database } from '../database/prisma-client';
import { Prisma } from '../generated/prisma/client';
import type { EventRow } from '../events/event-envelope';
import { pacingAssignments } from './delivery-pacing';
import { deliveryJobCtes, NORMAL_PRIORITY } from '../job-queue/delivery-queue';
import { attemptsAheadColumn } from './endpoint-share';
import { ownerMayRead } from '../events/outbox';
import { ATTEMPT_OUTCOME_BOUND_SECONDS, IN_PROGRESS_ERROR, INTERRUPTED_ERROR } from './attempt-outcome';
import { printableAscii } from '../validation/bounded-text';

/** An attempt's `error` at most (WebhookAttempt in the contracts: printable ASCII). */
const ATTEMPT_ERROR_CHARS = 200;

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
  /** The endpoint's attempts active now that started before this one (endpoint-share.ts). */
  attemptsAhead: number;
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
           ${ownerMayRead('c', 'v.type')} AS "ownerMayRead", ${attemptsAheadColumn()} AS "attemptsAhead",
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

/**
 * Records the attempt about to be made as started, and marks the delivery's earlier attempts that
 * were never completed interrupted (their process stopped; this attempt holds the delivery's job now,
 * so none of them can still be completed). Returns the attempt's id.
 */
export async function startAttempt(db: Database, deliveryId: string): Promise<bigint> {
  const [row] = await db.$queryRaw<{ id: bigint }[]>`
    WITH ${interruptEarlierAttempts(deliveryId)}
    INSERT INTO webhook_attempts (delivery_id, response_status, latency_ms, error, state)
    VALUES (${deliveryId}::uuid, NULL, 0, ${IN_PROGRESS_ERROR}, 'started')
    RETURNING id`;
  return row!.id;
}

/**
 * A CTE marking the delivery's attempts never completed as interrupted: run by whatever job of the
 * delivery comes next (an attempt, or an end without one), since that job holds the delivery now and
 * none of them can still be completed. Otherwise a delivery that ends without another attempt (its
 * endpoint disabled, its scope lost) would show its last attempt in progress until the outcome bound.
 */
function interruptEarlierAttempts(deliveryId: string): Prisma.Sql {
  return Prisma.sql`interrupted AS (
      UPDATE webhook_attempts SET state = 'interrupted', error = ${INTERRUPTED_ERROR}
      WHERE delivery_id = ${deliveryId}::uuid AND state = 'started'
    )`;
}

/**
 * Records an attempt's outcome and its consequences: completes the started attempt `attemptId`, or
 * inserts a completed one (an attempt not sent). Only a started row that no later attempt marked
 * interrupted, and that is still within ATTEMPT_OUTCOME_BOUND_SECONDS, is completed, and nothing
 * else is written when it is not: a process that lost its claim never overwrites what the next
 * attempt wrote. Returns whether the outcome was recorded.
 */
export async function recordAttempt(db: Database, attempt: AttemptRecord, attemptId?: bigint): Promise<boolean> {
  const change = attempt.endpointChange;
  // Written by the service, never by the receiver; kept as the contract's WebhookAttempt declares it all the same.
  const error = attempt.error === null ? null : printableAscii(attempt.error, ATTEMPT_ERROR_CHARS);
  const recorded = Prisma.sql`EXISTS (SELECT 1 FROM attempt)`;
  const write =
    attemptId === undefined
      ? Prisma.sql`INSERT INTO webhook_attempts (delivery_id, response_status, latency_ms, error)
          VALUES (${attempt.deliveryId}::uuid, ${attempt.responseStatus}::int, ${attempt.latencyMs}::int, ${error})`
      : Prisma.sql`UPDATE webhook_attempts
          SET state = 'completed', response_status = ${attempt.responseStatus}::int, latency_ms = ${attempt.latencyMs}::int, error = ${error}
          WHERE id = ${attemptId}::bigint AND state = 'started' AND attempted_at > now() - ${ATTEMPT_OUTCOME_BOUND_SECONDS}::int * interval '1 second'`;
  const [row] = await db.$queryRaw<{ recorded: boolean }[]>`
    WITH ${attemptId === undefined ? Prisma.sql`${interruptEarlierAttempts(attempt.deliveryId)},` : Prisma.empty} attempt AS (
      ${write}
      RETURNING id
    ), delivery AS (
      UPDATE webhook_deliveries SET status = ${attempt.status}, next_attempt_at = ${attempt.nextAttemptAt}::timestamptz
      WHERE id = ${attempt.deliveryId}::uuid AND ${recorded}
    ), endpoint AS (
      UPDATE webhook_endpoints
      SET failing_since = CASE WHEN ${change !== null}::boolean THEN ${change?.failingSince ?? null}::timestamptz ELSE failing_since END,
          enabled = enabled AND ${change?.disabledReason ?? null}::text IS NULL,
          disabled_reason = COALESCE(${change?.disabledReason ?? null}::text, disabled_reason)${pacingAssignments(attempt.pacing)}
      WHERE id = ${attempt.endpointId}::uuid AND ${change !== null || attempt.pacing !== null}::boolean AND ${recorded}
    )${attempt.nextAttemptAt ? Prisma.sql`, ${deliveryJobCtes(attempt.deliveryId, attempt.nextAttemptAt, 'retry', NORMAL_PRIORITY, recorded)}` : Prisma.empty}
    SELECT ${recorded} AS recorded`;
  return row?.recorded ?? false;
}

/** A delivery that ends without another attempt (its endpoint was disabled before the attempt came, or it reached the attempt cap): failed. */
export async function failDelivery(db: Database, deliveryId: string): Promise<void> {
  await db.$executeRaw`
    WITH ${interruptEarlierAttempts(deliveryId)}
    UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE id = ${deliveryId}::uuid`;
}
