/**
 * Bulk redelivery (issue 26 item 5): one more attempt of every failed delivery of an endpoint in a
 * range of creation times, as a single redelivery makes, so each runs under the same rules (the
 * agency's share of delivery slots, pacing, the 50-attempt cap). Bounded per call; a repeat queues
 * nothing twice, because what a call queued is `pending` until its attempt ends.
 */
import { Prisma } from '../generated/prisma/client';
import type { Queryable } from '../database/prisma-client';
import { BadRequest, ValidationFailed } from '../errors';
import { parseDateTime } from '../validation/time-values';
import { insertDeliveryJobs } from '../job-queue/delivery-queue';
import { MAX_ATTEMPTS_PER_DELIVERY } from './webhook-pages';

export const MAX_REDELIVERED_PER_CALL = 500;

export interface FailedRange {
  since: string;
  until?: string;
  limit?: number;
}

export interface FailedRedelivery {
  redelivered: number;
  atAttemptLimit: number;
  more: boolean;
}

/** SQL: delivery `d` already has the most attempts a delivery may have (reads at most that many index entries). */
const AT_ATTEMPT_LIMIT = Prisma.sql`EXISTS (SELECT 1 FROM webhook_attempts a WHERE a.delivery_id = d.id OFFSET ${MAX_ATTEMPTS_PER_DELIVERY - 1})`;

/** Queues the endpoint's failed deliveries of `range`, oldest first; the caller has checked that the endpoint is the agency's and enabled. */
export async function redeliverFailed(db: Queryable, endpointId: string, range: FailedRange): Promise<FailedRedelivery> {
  const since = instantOf('since', range.since);
  const until = range.until === undefined ? new Date() : instantOf('until', range.until);
  if (since > until) throw new BadRequest('bad_request', '`since` is after `until`.', ['since: must not be after until']);
  const limit = range.limit ?? MAX_REDELIVERED_PER_CALL;
  const inRange = Prisma.sql`d.endpoint_id = ${endpointId}::uuid AND d.status = 'failed' AND d.created_at >= ${since} AND d.created_at < ${until}`;
  // Locked, so that a single redelivery (or another bulk one) at the same time cannot pass the cap with it.
  const picked = await db.$queryRaw<Array<{ id: string }>>`
    SELECT d.id::text AS id FROM webhook_deliveries d WHERE ${inRange} AND NOT ${AT_ATTEMPT_LIMIT}
    ORDER BY d.created_at, d.id LIMIT ${limit + 1} FOR UPDATE OF d`;
  const ids = picked.slice(0, limit).map((row) => row.id);
  const now = new Date();
  const [counts] = await db.$queryRaw<Array<{ redelivered: number; at_limit: number }>>`
    WITH queued AS (
      UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ${now}
      WHERE id = ANY (${ids}::uuid[]) RETURNING id, company_id
    ), queued_job AS (${insertDeliveryJobs(Prisma.sql`SELECT q.id AS delivery_id, q.company_id, ${now}::timestamptz AS run_at FROM queued q`)})
    SELECT (SELECT count(*) FROM queued)::int AS redelivered,
           (SELECT count(*) FROM webhook_deliveries d WHERE ${inRange} AND ${AT_ATTEMPT_LIMIT})::int AS at_limit`;
  return { redelivered: counts!.redelivered, atAttemptLimit: counts!.at_limit, more: picked.length > limit };
}

/** A `since`/`until` value, read by the documents' one date-time parser (the validator already checked its format). */
function instantOf(name: string, text: string): Date {
  const instant = parseDateTime(text);
  if (!instant) throw new ValidationFailed([`${name}: must be an RFC 3339 date-time between the years 0001 and 9999`]);
  return instant;
}
