/**
 * The delivery jobs our statements insert into pg-boss's table (src/job-queue/delivery-queue.ts) are
 * jobs as pg-boss itself reads them: read back through pg-boss's API, each has the queue's settings
 * (policy, heartbeat, retries), the delivery as its key and the agency as its group; and however many
 * redeliveries are asked for, a delivery never has more than one attempt queued. This guards the
 * columns we write against a pg-boss upgrade. And the upgrade from graphile-worker loses no delivery.
 */
import { PgBoss } from 'pg-boss';
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { Prisma } from '../../src/generated/prisma/client';
import { DELIVERY_QUEUE, QUEUE_SCHEMA, unqueueDeliveries } from '../../src/job-queue/delivery-queue';
import { installDeliveryQueue } from '../../src/job-queue/queue-install';
import { webhookClient } from './webhook-support';

// Nothing delivers here (WEBHOOK_DELIVERY_CONCURRENCY 0): the queued jobs stay where they are.
const world = useTestApp({ SCHEDULER_INTERVAL_MS: '0' }, { agencies: 1 });
const partner = asPartner(world);
const hooks = webhookClient(world, () => world.agency);

async function withBoss<T>(use: (boss: PgBoss) => Promise<T>): Promise<T> {
  const boss = new PgBoss({ connectionString: world.databaseUrl, schema: QUEUE_SCHEMA, max: 1, migrate: false, supervise: false, schedule: false });
  boss.on('error', () => undefined);
  await boss.start();
  try {
    return await use(boss);
  } finally {
    await boss.stop({ graceful: false });
  }
}

it('queues one pg-boss job per delivery with the queue settings, keyed by delivery and grouped by agency; redeliveries never queue a second', async () => {
  const endpoint = await hooks.register('http://127.0.0.1:9/hooks', ['rental_insurance.status_changed']);
  await partner.newGuarantee();
  const delivery = await world.db.webhookDelivery.findFirstOrThrow({ where: { endpointId: endpoint.id } });
  const jobs = await withBoss((boss) => boss.findJobs<{ deliveryId: string }>(DELIVERY_QUEUE, { key: delivery.id }));
  expect(jobs).toHaveLength(1);
  expect(jobs[0]).toMatchObject({
    name: DELIVERY_QUEUE,
    data: { deliveryId: delivery.id },
    state: 'created',
    policy: 'stately',
    singletonKey: delivery.id,
    groupId: world.agency.companyId,
    heartbeatSeconds: 30,
    retryLimit: 10,
  });

  for (let i = 0; i < 3; i++) expect((await hooks.redeliver(endpoint.id, delivery.id)).status).toBe(202);
  const after = await withBoss((boss) => boss.findJobs(DELIVERY_QUEUE, { key: delivery.id }));
  expect(after.map((job) => job.state)).toEqual(['created']);
});

it('queues again, at installation, the pending deliveries of a database that delivered with graphile-worker, and drops that schema', async () => {
  const endpoint = await hooks.register('http://127.0.0.1:9/hooks', ['rental_insurance.status_changed']);
  await partner.newGuarantee();
  const delivery = await world.db.webhookDelivery.findFirstOrThrow({ where: { endpointId: endpoint.id } });
  const dueAt = new Date(Date.now() + 60_000);
  await world.db.webhookDelivery.update({ where: { id: delivery.id }, data: { nextAttemptAt: dueAt } });
  // As the upgrade finds it: the delivery pending, its job in graphile-worker's queue (not pg-boss's).
  await world.db.$executeRaw`${unqueueDeliveries(Prisma.sql`SELECT ${delivery.id}::uuid AS id`)}`;
  await world.db.$executeRaw`CREATE SCHEMA graphile_worker`;

  await Promise.all([installDeliveryQueue(world.databaseUrl), installDeliveryQueue(world.databaseUrl)]);
  const jobs = await withBoss((boss) => boss.findJobs(DELIVERY_QUEUE, { key: delivery.id }));
  expect(jobs.map((job) => [job.state, job.startAfter.toISOString()])).toEqual([['created', dueAt.toISOString()]]);
  const [schema] = await world.db.$queryRaw<{ present: boolean }[]>`SELECT to_regnamespace('graphile_worker') IS NOT NULL AS present`;
  expect(schema!.present).toBe(false);
});
