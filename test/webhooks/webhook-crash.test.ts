/**
 * A committed change is delivered even when its process dies right after COMMIT: a real service
 * process (which delivers nothing itself) answers 201 and is killed with SIGKILL at once; another
 * service process, started afterwards, delivers the event.
 */
import { guaranteeBody } from '../support/factories';
import { call, startService, stopAllServices } from '../support/service-process';
import { useTestApp } from '../support/test-app';
import { startReceiver, verify, webhookClient } from './webhook-support';

jest.setTimeout(120_000);

const world = useTestApp({}, { agencies: 1 });
world.beforeClose(stopAllServices);
const hooks = webhookClient(world, () => world.agency);

it('delivers the event of a write whose process was killed right after answering it', async () => {
  const receiver = await startReceiver();
  world.beforeClose(() => receiver.close());
  const endpoint = await hooks.register(receiver.url, ['rental_insurance.status_changed']);
  const victim = await startService(world.databaseUrl, { WEBHOOK_DELIVERY_CONCURRENCY: '0', SCHEDULER_INTERVAL_MS: '0' });
  const created = await call(victim.origin, 'POST', '/v1/rental-insurances', { ...world.agency.auth, 'Idempotency-Key': 'crash-1' }, guaranteeBody());
  await victim.kill('SIGKILL');
  expect(created.status).toBe(201);
  expect(receiver.received).toEqual([]);

  await startService(world.databaseUrl, { WEBHOOK_DELIVERY_CONCURRENCY: '2', SCHEDULER_INTERVAL_MS: '0' });
  const [delivery] = await receiver.waitFor((all) => all.length >= 1, 30_000);
  expect(verify(endpoint.secret, delivery!)).toMatchObject({
    type: 'rental_insurance.status_changed',
    data: { previousStatus: null, status: 'under_review', rentalInsurance: { id: created.body!['id'] } },
  });
});
