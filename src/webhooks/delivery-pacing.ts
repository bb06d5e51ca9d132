/**
 * Pacing of an endpoint that stops answering (issue 23 item 3). An attempt that got no answer (a
 * timeout, a connection failure) holds a delivery slot for up to WEBHOOK_TIMEOUT_MS; an endpoint
 * whose last PACE_AFTER attempts all went unanswered is paced: across every process, it gets one
 * attempt per pace interval (5 s after the 3rd, doubling with each further one, at most 5 minutes,
 * plus the attempt's timeout), and its other deliveries wait for their turn without an attempt (their
 * job is queued again at the endpoint's next turn, spread over the interval, and `nextAttemptAt`
 * shows it). An answer ends the pacing, and so do a new URL and re-enabling the endpoint
 * (company-webhooks.ts); each also brings the endpoint's waiting deliveries back at once
 * (`endPacing`). The retry schedule of each delivery is unchanged: pacing only delays.
 *
 * The endpoint's row is written only while it fails to answer (a counter per unanswered attempt, and
 * the claim of each paced turn), never for the deliveries of an endpoint that answers.
 */
import type { Database, Queryable } from '../database/prisma-client';
import { Prisma } from '../generated/prisma/client';
import { DELIVERY_QUEUE, deliveryJobCtes, NORMAL_PRIORITY } from '../job-queue/delivery-queue';

/** Unanswered attempts in a row after which an endpoint is paced. */
export const PACE_AFTER = 3;
const FIRST_PACE_MS = 5_000;
const MAX_PACE_MS = 300_000;

/** The interval between two attempts of an endpoint whose last `unanswered` attempts went unanswered. */
export function paceMs(unanswered: number, timeoutMs: number): number {
  const doublings = Math.min(unanswered - PACE_AFTER, 10);
  return Math.min(FIRST_PACE_MS * 2 ** doublings, MAX_PACE_MS) + timeoutMs;
}

/** What an attempt's outcome does to its endpoint's count of unanswered attempts in a row (null: nothing to write). */
export function pacingChange(answered: boolean, unansweredInRow: number): 'add' | 'reset' | null {
  if (!answered) return 'add';
  return unansweredInRow > 0 ? 'reset' : null;
}

/** The SET clauses of the endpoint's row for a pacing change (recordAttempt's one statement). */
export function pacingAssignments(change: 'add' | 'reset' | null): Prisma.Sql {
  if (change === 'add') return Prisma.sql`, unanswered_in_row = unanswered_in_row + 1`;
  if (change === 'reset') return Prisma.sql`, unanswered_in_row = 0, paced_until = NULL`;
  return Prisma.empty;
}

/**
 * Takes the endpoint's next paced turn if it has come (one process wins it), or says when it comes.
 * `null`: this attempt may go now.
 */
export async function pacedTurn(db: Database, endpointId: string, intervalMs: number): Promise<Date | null> {
  const [row] = await db.$queryRaw<{ claimed: Date | null; next: Date | null }[]>`
    WITH claimed AS (
      UPDATE webhook_endpoints SET paced_until = now() + ${intervalMs}::int * interval '1 millisecond'
      WHERE id = ${endpointId}::uuid AND (paced_until IS NULL OR paced_until <= now())
      RETURNING paced_until
    )
    SELECT (SELECT paced_until FROM claimed) AS claimed, (SELECT paced_until FROM webhook_endpoints WHERE id = ${endpointId}::uuid) AS next`;
  if (!row || row.claimed) return null;
  return row.next;
}

/**
 * Puts the delivery's attempt off to `at` without making it: its next job is queued then (the one
 * running now ends), spread over `spreadMs` so that an endpoint's waiting deliveries do not all come
 * back at once.
 */
export async function deferDelivery(db: Database, deliveryId: string, at: Date, spreadMs: number, priority = NORMAL_PRIORITY): Promise<void> {
  const runAt = new Date(at.getTime() + Math.floor(Math.random() * spreadMs));
  await db.$executeRaw`
    WITH delivery AS (UPDATE webhook_deliveries SET next_attempt_at = ${runAt}::timestamptz WHERE id = ${deliveryId}::uuid AND status = 'pending'),
    ${deliveryJobCtes(deliveryId, runAt, 'paced', priority)}
    SELECT 1`;
}

/**
 * Ends an endpoint's pacing (it answered, has a new URL or is enabled again), in the caller's
 * transaction if any: its count starts again, and its pending deliveries, which waited for a turn
 * (or for a retry after going unanswered), are attempted now.
 */
export async function endPacing(db: Queryable, endpointId: string): Promise<void> {
  await db.$executeRaw`
    WITH endpoint AS (UPDATE webhook_endpoints SET unanswered_in_row = 0, paced_until = NULL WHERE id = ${endpointId}::uuid),
    pending AS (UPDATE webhook_deliveries SET next_attempt_at = now() WHERE endpoint_id = ${endpointId}::uuid AND status = 'pending' RETURNING id)
    UPDATE pgboss.job SET start_after = now()
    WHERE name = ${DELIVERY_QUEUE} AND state IN ('created', 'retry') AND singleton_key IN (SELECT id::text FROM pending)`;
}
