/**
 * An endpoint's share of its agency's delivery slots (issue 23 item 3): within one agency, one
 * endpoint's attempts run at most WEBHOOK_ENDPOINT_CONCURRENCY at once (default 2, below the agency's
 * 3), so a receiver that answers slowly (and is therefore never paced, delivery-pacing.ts) cannot hold
 * all of its agency's slots and delay the agency's other endpoints.
 *
 * pg-boss 12 has one group per job (the agency: WEBHOOK_AGENCY_CONCURRENCY is its group concurrency,
 * "tiers" only give groups different limits), so the endpoint's share is counted here, across every
 * process, in the job table itself: no row is written and nothing is kept in memory. When an attempt
 * starts, its job is active (pg-boss marks it so at fetch); the endpoint's active jobs are ranked by
 * (started_on, id), and an attempt with WEBHOOK_ENDPOINT_CONCURRENCY or more ahead of it is deferred
 * a short time without being made (`deferDelivery`, as a paced one is): its job ends and the next is
 * queued at a lower priority, so that it yields to every attempt not put off (pg-boss fetches by
 * priority, then age): otherwise the slow endpoint's put-off jobs, due again every second or two and
 * older than the agency's new ones, would take the agency's free slots only to be put off again. A job's rank only falls as the ones ahead end, so at most
 * the share runs at once, and the oldest active attempt always runs (no endpoint waits on itself).
 * A job that a killed process held stays active until pg-boss's supervision finds its heartbeat lost,
 * so it counts against the share until then (`WEBHOOK_HEARTBEAT_SECONDS`). Only a job whose fetch
 * commits after a later-started job's check can run beside a full share: a window of one fetch
 * statement.
 */
import { Prisma } from '../generated/prisma/client';
import { DELIVERY_QUEUE } from '../job-queue/delivery-queue';

/** How long an attempt over its endpoint's share waits (plus up to BUSY_SPREAD_MS, so the waiting ones come back spread out). */
export const BUSY_DEFER_MS = 1_000;
export const BUSY_SPREAD_MS = 1_000;

/**
 * A column of readDelivery (alias `d`: the delivery): how many of its endpoint's attempts started
 * before this delivery's own running attempt and are still active. Reads only the agency's active
 * jobs (pg-boss's index job_i7 on name, group_id where active), a handful at most.
 */
export function attemptsAheadColumn(): Prisma.Sql {
  return Prisma.sql`(
    SELECT count(*)::int
    FROM pgboss.job own, pgboss.job j JOIN webhook_deliveries o ON o.id = j.singleton_key::uuid
    WHERE own.name = ${DELIVERY_QUEUE} AND own.state = 'active' AND own.group_id = d.company_id AND own.singleton_key = d.id::text
      AND j.name = ${DELIVERY_QUEUE} AND j.state = 'active' AND j.group_id = d.company_id AND o.endpoint_id = d.endpoint_id
      AND (j.started_on, j.id) < (own.started_on, own.id))`;
}
