/**
 * The transactional outbox: `emitEvent` is called by the domain functions that make a change
 * (guarantee changes, comments, statement entries), on the change's unit of work, so the event row
 * commits or rolls back with the change. In the same statement the event gets one delivery per
 * enabled endpoint of the agency subscribed to the type whose credential may read it, and one pg-boss job per delivery
 * (src/job-queue/delivery-queue.ts, also in the transaction: the job exists exactly when the event
 * does, even if the process dies right after COMMIT; its NOTIFY wakes the workers at COMMIT).
 */
import { randomUUID } from 'node:crypto';
import { Prisma } from '../generated/prisma/client';
import type { AppendedTable, UnitOfWork } from '../database/unit-of-work';
import type { EventType } from './event-types';
import { insertDeliveryJobs } from '../job-queue/delivery-queue';
import { READ_SCOPE_OF_TYPE } from './event-scopes';

export interface NewEvent {
  companyId: string;
  type: EventType | 'webhook.test';
  data: unknown;
  /** When it happened, when not now (a time-travelled sandbox guarantee's own time). */
  occurredAt?: Date;
}

/** An event as it is appended. */
interface EventRow extends NewEvent {
  id: string;
}

/**
 * The CTEs that insert a JSON array of events in their order, one delivery per enabled endpoint of
 * their agency subscribed to their type (or only to `onlyEndpoint`), and one delivery job per
 * delivery (a data-modifying CTE always runs to completion, read or not), carrying the trace
 * context of the statement that writes them (the unit's `unit_trace`).
 */
function eventTable(onlyEndpoint?: string): AppendedTable {
  return {
    name: 'events',
    before: Prisma.sql`held_event AS (
      INSERT INTO events (id, company_id, type, data, occurred_at)
      SELECT (v->>'id')::uuid, v->>'companyId', v->>'type', v->'data', COALESCE((v->>'occurredAt')::timestamptz, now())
      FROM jsonb_array_elements(`,
    after: Prisma.sql`) WITH ORDINALITY AS held(v, position) ORDER BY held.position
      RETURNING id, company_id, type
    ), held_delivery AS (
      INSERT INTO webhook_deliveries (endpoint_id, event_id, company_id)
      SELECT e.id, event.id, e.company_id FROM webhook_endpoints e JOIN held_event event ON e.company_id = event.company_id
      JOIN credentials owner ON owner.id = e.credential_id
      WHERE (CASE WHEN ${onlyEndpoint ?? null}::uuid IS NULL THEN e.enabled AND event.type = ANY (e.event_types) AND ${ownerMayRead('owner', 'event.type')}
                  ELSE e.id = ${onlyEndpoint ?? null}::uuid END)
      RETURNING id AS delivery_id, company_id, now() AS run_at
    ), held_job AS (${insertDeliveryJobs(
      Prisma.sql`SELECT delivery_id, company_id, run_at FROM held_delivery`,
      undefined,
      Prisma.sql`(SELECT carrier FROM unit_trace)`,
    )})`,
  };
}

/** events (with their deliveries and delivery jobs) as a unit of work's appended table (database/unit-of-work.ts). */
export const EVENTS: AppendedTable = eventTable();

/**
 * Emits an event: appended to the unit of work, which writes it (and queues its deliveries) with the
 * write's last statement; no read of this transaction sees it nor its deliveries. Returns its id.
 */
export function emitEvent(unit: UnitOfWork, event: NewEvent): string {
  const row: EventRow = { id: randomUUID(), ...event };
  unit.append(EVENTS, row);
  return row.id;
}

/**
 * The test event of one endpoint, written at once (its delivery is read back) after whatever the
 * unit appended before (those events go to every subscribed endpoint). Returns its id.
 */
export async function writeTestEventNow(unit: UnitOfWork, event: NewEvent, onlyEndpoint: string): Promise<string> {
  const row: EventRow = { id: randomUUID(), ...event };
  await unit.writeNow(eventTable(onlyEndpoint), row, Prisma.sql`SELECT 1`);
  return row.id;
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
