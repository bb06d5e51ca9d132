/**
 * The transactional outbox: `emitEvent` is called by the domain functions that make a change
 * (guarantee changes, comments, statement entries), on the same database handle, so the event row
 * commits or rolls back with the change. In the same statement it creates one delivery per enabled
 * endpoint of the agency subscribed to the type, and enqueues one graphile-worker job per delivery
 * (`graphile_worker.add_job`, also in the transaction: the job exists exactly when the event does,
 * even if the process dies right after COMMIT; add_job's NOTIFY wakes a worker at COMMIT).
 */
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../database/prisma-client';
import type { EventType } from './event-types';

export const DELIVERY_TASK = 'deliver_webhook';

/** Attempts graphile-worker makes of one job when the task itself throws (a database error); HTTP failures are rescheduled by the task. */
export const JOB_MAX_ATTEMPTS = 5;

export interface NewEvent {
  companyId: string;
  type: EventType | 'webhook.test';
  data: unknown;
}

/** Stores the event and queues its deliveries; returns its id. `onlyEndpoint`: the test event of one endpoint. */
export async function emitEvent(db: Queryable, event: NewEvent, onlyEndpoint?: string): Promise<string> {
  const id = randomUUID();
  const data = JSON.stringify(event.data);
  await db.$queryRaw`
    WITH event AS (
      INSERT INTO events (id, company_id, type, data) VALUES (${id}::uuid, ${event.companyId}, ${event.type}, ${data}::jsonb)
      RETURNING id, company_id, type
    ), delivery AS (
      INSERT INTO webhook_deliveries (endpoint_id, event_id, company_id)
      SELECT e.id, event.id, e.company_id FROM webhook_endpoints e, event
      WHERE e.company_id = event.company_id
        AND (CASE WHEN ${onlyEndpoint ?? null}::uuid IS NULL THEN e.enabled AND event.type = ANY (e.event_types)
                  ELSE e.id = ${onlyEndpoint ?? null}::uuid END)
      RETURNING id
    )
    SELECT (graphile_worker.add_job(${DELIVERY_TASK}, json_build_object('deliveryId', delivery.id),
                                    max_attempts => ${JOB_MAX_ATTEMPTS}::int, job_key => delivery.id::text)).id
    FROM delivery`;
  return id;
}

/**
 * Queues the next attempt of a delivery (a retry at `runAt`, or a redelivery now), in the caller's
 * transaction. The job key is the delivery's id: a queued attempt not yet started is replaced, so
 * one delivery never has two attempts queued.
 */
export async function enqueueDelivery(db: Queryable, deliveryId: string, runAt: Date = new Date()): Promise<void> {
  await db.$queryRaw`
    SELECT (graphile_worker.add_job(${DELIVERY_TASK}, json_build_object('deliveryId', ${deliveryId}::uuid), run_at => ${runAt}::timestamptz,
                                    max_attempts => ${JOB_MAX_ATTEMPTS}::int, job_key => ${deliveryId})).id`;
}
