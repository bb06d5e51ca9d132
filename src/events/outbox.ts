/**
 * The transactional outbox: `emitEvent` is called by the domain functions that make a change
 * (guarantee changes, comments, statement entries), on the same database handle, so the event row
 * commits or rolls back with the change. In the same statement the event gets one delivery per
 * enabled endpoint of the agency subscribed to the type whose credential may read it, and one pg-boss job per delivery
 * (src/webhooks/delivery-queue.ts, also in the transaction: the job exists exactly when the event
 * does, even if the process dies right after COMMIT; its NOTIFY wakes the workers at COMMIT).
 */
import { randomUUID } from 'node:crypto';
import { Prisma } from '../generated/prisma/client';
import type { Queryable } from '../database/prisma-client';
import type { EventType } from './event-types';
import { heldAppends, type HeldEvent } from '../database/held-appends';
import { deliveryJobCtes, insertDeliveryJobs } from '../webhooks/delivery-queue';
import { READ_SCOPE_OF_TYPE } from './event-scopes';

export interface NewEvent {
  companyId: string;
  type: EventType | 'webhook.test';
  data: unknown;
}

/**
 * Stores the event and queues its deliveries; returns its id. A write's transaction holds it
 * (held-appends.ts) for its last statement; elsewhere it is written at once, after the events held
 * so far, in one statement. `onlyEndpoint`: the test event of one endpoint (written at once: its
 * delivery is read back).
 */
export async function emitEvent(db: Queryable, event: NewEvent, onlyEndpoint?: string): Promise<string> {
  const row: HeldEvent = { id: randomUUID(), ...event };
  const held = heldAppends(db);
  if (held && !onlyEndpoint) {
    held.events.push(row);
    return row.id;
  }
  await db.$executeRaw`WITH ${eventRowsCtes([...(held?.events.splice(0) ?? []), row], onlyEndpoint)} SELECT 1`;
  return row.id;
}

/**
 * The CTEs that insert the events in their order, one delivery per enabled endpoint of their agency
 * subscribed to their type (or only to `onlyEndpoint`), and one delivery job per delivery (a
 * data-modifying CTE always runs to completion, read or not).
 */
export function eventRowsCtes(events: HeldEvent[], onlyEndpoint?: string): Prisma.Sql {
  return Prisma.sql`held_event AS (
      INSERT INTO events (id, company_id, type, data)
      SELECT (v->>'id')::uuid, v->>'companyId', v->>'type', v->'data'
      FROM jsonb_array_elements(${JSON.stringify(events)}::jsonb) WITH ORDINALITY AS held(v, position) ORDER BY held.position
      RETURNING id, company_id, type
    ), held_delivery AS (
      INSERT INTO webhook_deliveries (endpoint_id, event_id, company_id)
      SELECT e.id, event.id, e.company_id FROM webhook_endpoints e JOIN held_event event ON e.company_id = event.company_id
      JOIN credentials owner ON owner.id = e.credential_id
      WHERE (CASE WHEN ${onlyEndpoint ?? null}::uuid IS NULL THEN e.enabled AND event.type = ANY (e.event_types) AND ${ownerMayRead('owner', 'event.type')}
                  ELSE e.id = ${onlyEndpoint ?? null}::uuid END)
      RETURNING id AS delivery_id, company_id, now() AS run_at
    ), held_job AS (${insertDeliveryJobs(Prisma.sql`SELECT delivery_id, company_id, run_at FROM held_delivery`)})`;
}

/**
 * SQL: the endpoint's owning credential (`owner`) is not revoked and may still receive events of
 * `type` by webhook: ri:webhooks:manage and the scope that reads the event's resource (event-scopes.ts).
 */
export function ownerMayRead(owner: string, type: string): Prisma.Sql {
  const credential = Prisma.raw(owner);
  return Prisma.sql`(${credential}.revoked_at IS NULL AND 'ri:webhooks:manage' = ANY (${credential}.scopes)
    AND (${JSON.stringify(READ_SCOPE_OF_TYPE)}::jsonb ->> ${Prisma.raw(type)}) = ANY (${credential}.scopes))`;
}

/**
 * Queues the next attempt of a delivery (a redelivery now), in the caller's transaction; a queued
 * attempt not yet started is moved forward instead, so one delivery never has two attempts queued.
 */
export async function enqueueDelivery(db: Queryable, deliveryId: string, runAt: Date = new Date()): Promise<void> {
  await db.$executeRaw`WITH ${deliveryJobCtes(deliveryId, runAt)} SELECT 1`;
}
