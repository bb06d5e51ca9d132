/**
 * Installs the job queue at migration time (migrateDatabase), with one pg-boss connection closed
 * afterwards: pg-boss's schema (`pgboss`), created and upgraded by pg-boss's own migrations under its
 * advisory lock (a process that finds another one migrating tries again), and the delivery queue
 * (created when missing, under a lock: idempotent). Writes queue delivery jobs in their own
 * statement, so both must exist before any write.
 *
 * A database that delivered with graphile-worker (before pg-boss) still holds that queue: its
 * pending deliveries are queued again here (their attempts are due at their `next_attempt_at`), and
 * the `graphile_worker` schema is dropped. A delivery that already has a job is left alone, so
 * processes starting at once queue each delivery once.
 */
import { PgBoss } from 'pg-boss';
import { Prisma } from '../generated/prisma/client';
import { DEFAULT_HEARTBEAT_SECONDS, DELIVERY_QUEUE, deliveryQueueOptions, insertDeliveryJobs, QUEUE_SCHEMA } from './delivery-queue';

export async function installDeliveryQueue(databaseUrl: string): Promise<void> {
  const boss = new PgBoss({
    connectionString: databaseUrl,
    schema: QUEUE_SCHEMA,
    max: 1,
    migrate: true,
    supervise: false,
    schedule: false,
    registerInstance: false,
  });
  // Errors reach the caller through the promises below; an 'error' event without a listener would end the process.
  boss.on('error', () => undefined);
  try {
    await boss.start({ attempts: 5 });
    // The settings' defaults; each delivering process applies its own WEBHOOK_HEARTBEAT_SECONDS at start.
    await boss.createQueue(DELIVERY_QUEUE, { policy: 'stately', ...deliveryQueueOptions(DEFAULT_HEARTBEAT_SECONDS) });
    await adoptGraphileWorkerDeliveries(boss);
  } finally {
    await boss.stop({ graceful: false, close: true }).catch(() => undefined);
  }
}

async function adoptGraphileWorkerDeliveries(boss: PgBoss): Promise<void> {
  const db = boss.getDb();
  const { rows } = await db.executeSql(`SELECT to_regnamespace('graphile_worker') IS NOT NULL AS "present"`);
  if (!(rows[0] as { present: boolean } | undefined)?.present) return;
  const adopt = Prisma.sql`WITH adopted AS (${insertDeliveryJobs(Prisma.sql`
      SELECT d.id AS delivery_id, d.company_id, COALESCE(d.next_attempt_at, now()) AS run_at FROM webhook_deliveries d
      WHERE d.status = 'pending' AND NOT EXISTS (
        SELECT 1 FROM pgboss.job j WHERE j.name = ${DELIVERY_QUEUE} AND j.singleton_key = d.id::text AND j.state IN ('created', 'retry', 'active'))`)})
    SELECT count(*)::int AS adopted FROM adopted`;
  await db.executeSql(adopt.text, adopt.values);
  await db.executeSql('DROP SCHEMA IF EXISTS graphile_worker CASCADE');
}
