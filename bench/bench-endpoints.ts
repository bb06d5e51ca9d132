/**
 * The webhook endpoints that the events A/B (events-cost.ts) subscribes for the bench agency. It
 * removes them when it ends; a run stopped half-way leaves them subscribed, and every create of
 * the next runs (`make bench`, `make bench-compare`) would then pay their fan-out. So every run
 * removes them before it measures (setup.ts) as well.
 */
import type { Database } from '../src/database/prisma-client';
import { Prisma } from '../src/generated/prisma/client';
import { unqueueDeliveries } from '../src/job-queue/delivery-queue';
import { BENCH_COMPANY } from './seed';

/** Where the A/B's endpoints point (a reserved name: nothing ever answers there). */
export const BENCH_HOSTS = '.bench.invalid/events';

/** Endpoints of earlier A/B runs: their queued jobs leave the queue, then they go (their deliveries with them). Returns how many went. */
export async function removeBenchEndpoints(db: Database): Promise<number> {
  const where = { companyId: BENCH_COMPANY, url: { endsWith: BENCH_HOSTS } };
  const ids = (await db.webhookEndpoint.findMany({ where, select: { id: true } })).map((endpoint) => endpoint.id);
  await dropDeliveries(db, ids);
  await db.webhookEndpoint.deleteMany({ where });
  return ids.length;
}

/** Nothing would ever attempt these deliveries: their queued jobs are removed from the queue, and they are deleted. */
export async function dropDeliveries(db: Database, endpointIds: string[]): Promise<void> {
  if (endpointIds.length === 0) return;
  await db.$executeRaw`${unqueueDeliveries(Prisma.sql`SELECT d.id FROM webhook_deliveries d WHERE d.endpoint_id = ANY (${endpointIds}::uuid[])`)}`;
  await db.webhookDelivery.deleteMany({ where: { endpointId: { in: endpointIds } } });
}
