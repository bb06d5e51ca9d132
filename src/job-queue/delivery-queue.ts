/**
 * The webhook delivery queue on pg-boss (schema `pgboss`, queue `webhook-delivery`): one job per
 * queued attempt of a delivery. Writes queue jobs in their OWN statement (the outbox, a retry, a
 * redelivery), so a job exists exactly when its delivery does, even if the process dies right after
 * COMMIT. pg-boss's `send()` cannot join a statement, so the job rows are inserted here with the
 * queue's own settings (read from `pgboss.queue` in the same statement, as pg-boss's insert does):
 * the columns named below are pg-boss 12's job table, pinned by the exact version in package.json and
 * checked by test/webhooks/delivery-queue.test.ts, which reads such a job back through pg-boss's API.
 *
 * - `singleton_key` is the delivery's id and the queue's policy is `stately`: at most one attempt of
 *   a delivery is active at a time, in any process, and at most one is queued (a redelivery moves the
 *   queued one forward instead of adding another).
 * - `group_id` is the delivery's agency (the fair share of delivery slots, delivery-worker.ts).
 * - A job whose attempt can run now wakes the workers of every process (pg-boss's NOTIFY channel, at
 *   COMMIT); a retry due later is found by polling.
 * - With tracing on, a job's data also carries the trace context of whatever queued it (`traceparent`,
 *   `tracestate`): its attempt continues that trace (delivery-worker.ts).
 */
import type { QueueOptions } from 'pg-boss';
import { Prisma } from '../generated/prisma/client';
import { traceContext, type TraceCarrier } from '../tracing/tracing';
import { SETTINGS } from '../config';

export const QUEUE_SCHEMA = 'pgboss';
export const DELIVERY_QUEUE = 'webhook-delivery';

/** The queue's settings at creation (migrateDatabase): WEBHOOK_HEARTBEAT_SECONDS's default. */
export const DEFAULT_HEARTBEAT_SECONDS = SETTINGS.WEBHOOK_HEARTBEAT_SECONDS.default;

/**
 * The queue's settings (a job takes them when it is queued). Errors of our code or the database
 * (never an HTTP failure: the job reschedules those itself) and lost heartbeats are retried with
 * backoff from 1 s; a job is expired (and retried) if its handler hangs for 5 minutes.
 */
export function deliveryQueueOptions(heartbeatSeconds: number): QueueOptions & { notify: boolean } {
  return {
    heartbeatSeconds,
    expireInSeconds: 300,
    retryLimit: 10,
    retryDelay: 1,
    retryBackoff: true,
    retryDelayMax: 300,
    // Completed jobs are bookkeeping only (the attempts are our log): kept an hour.
    deleteAfterSeconds: 3600,
    notify: true,
  };
}

/** pg-boss's LISTEN/NOTIFY channel of the schema (its `notifyChannelSql`); the payload is the queue's name. */
const NOTIFY_CHANNEL = Prisma.sql`('pgboss_' || left(encode(sha224(${QUEUE_SCHEMA}::bytea), 'hex'), 24))`;

/** A job's priority (pg-boss fetches higher first, then older): an attempt put off for its endpoint's share yields to the others (endpoint-share.ts). */
export const NORMAL_PRIORITY = 0;
export const YIELDING_PRIORITY = -1;

/** A delivery job's data. */
export interface DeliveryJobData extends TraceCarrier {
  deliveryId: string;
}

/**
 * The job data's expression: the delivery's id, and the trace context: `carrier` (an SQL expression
 * of a jsonb object), else the one active now when there is one.
 */
function jobData(deliveryId: Prisma.Sql, carrier?: Prisma.Sql): Prisma.Sql {
  const data = Prisma.sql`jsonb_build_object('deliveryId', ${deliveryId})`;
  if (carrier) return Prisma.sql`${data} || ${carrier}`;
  const active = traceContext();
  return active ? Prisma.sql`${data} || ${JSON.stringify(active)}::jsonb` : data;
}

/**
 * The CTE body that inserts one job per row of `source` (columns `delivery_id uuid`, `company_id
 * text`, `run_at timestamptz`). A queue row that is missing makes the statement fail (NOT NULL
 * columns), never drops a job silently. `carrier`: the trace context the jobs carry, as an SQL
 * expression (the outbox's: the one of the statement that writes them); else the active one.
 */
export function insertDeliveryJobs(source: Prisma.Sql, priority = NORMAL_PRIORITY, carrier?: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`
    INSERT INTO pgboss.job (name, data, singleton_key, group_id, start_after, priority, policy, retry_limit, retry_delay, retry_backoff,
                            retry_delay_max, expire_seconds, deletion_seconds, heartbeat_seconds, keep_until, dead_letter)
    SELECT ${DELIVERY_QUEUE}, ${jobData(Prisma.sql`s.delivery_id`, carrier)}, s.delivery_id::text, s.company_id, s.run_at, ${priority}::int, q.policy,
           q.retry_limit, q.retry_delay, q.retry_backoff, q.retry_delay_max, q.expire_seconds, q.deletion_seconds, q.heartbeat_seconds,
           s.run_at + q.retention_seconds * interval '1 second', q.dead_letter
    FROM (${source}) s LEFT JOIN pgboss.queue q ON q.name = ${DELIVERY_QUEUE}
    ON CONFLICT DO NOTHING
    RETURNING CASE WHEN start_after <= now() THEN pg_notify(${NOTIFY_CHANNEL}, ${DELIVERY_QUEUE}) END`;
}

/**
 * A statement's CTEs that queue the next attempt of one delivery at `runAt`: a queued attempt not yet
 * started is moved to `runAt` when that is sooner (so a delivery never has two queued, and a
 * redelivery is not put off by a retry queued during it), otherwise a new job is queued. Names its
 * CTEs after `prefix` so that a statement may hold other CTEs; `when` (a condition on the statement's
 * other CTEs) says whether to queue at all.
 */
export function deliveryJobCtes(
  deliveryId: string,
  runAt: Date,
  prefix = 'queued',
  priority = NORMAL_PRIORITY,
  when: Prisma.Sql = Prisma.sql`true`,
): Prisma.Sql {
  const moved = Prisma.raw(`${prefix}_moved`);
  return Prisma.sql`${moved} AS (
      UPDATE pgboss.job SET start_after = LEAST(start_after, ${runAt}::timestamptz)
      WHERE name = ${DELIVERY_QUEUE} AND singleton_key = ${deliveryId} AND state IN ('created', 'retry') AND ${when}
      RETURNING id
    ), ${Prisma.raw(`${prefix}_job`)} AS (${insertDeliveryJobs(
      Prisma.sql`
      SELECT d.id AS delivery_id, d.company_id, ${runAt}::timestamptz AS run_at FROM webhook_deliveries d
      WHERE d.id = ${deliveryId}::uuid AND NOT EXISTS (SELECT 1 FROM ${moved}) AND ${when}`,
      priority,
    )})`;
}

/** The statement that removes the queued (not running) attempts of the deliveries `deliveryIds` selects (column `id`). */
export function unqueueDeliveries(deliveryIds: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`
    DELETE FROM pgboss.job WHERE name = ${DELIVERY_QUEUE} AND state IN ('created', 'retry')
      AND singleton_key IN (SELECT s.id::text FROM (${deliveryIds}) s)`;
}
