/**
 * A receiver that is down while PostgreSQL restarts still gets every event once both are back.
 * One real service process (with its delivery worker) on a PostgreSQL server of this suite's own:
 * the receiver goes down, events are made, the database stops and starts again (the service
 * process is never restarted), more events are made, the receiver comes back on its address, and
 * then every event of the agency arrives, signed, at least once, and its delivery ends succeeded.
 */
import { createCredential } from '../../src/auth/credentials';
import { SCOPES } from '../../src/auth/scopes';
import { migrateDatabase } from '../../src/database/migrate';
import { createDatabaseClient, type Database } from '../../src/database/prisma-client';
import { guaranteeBody, newKey } from '../support/factories';
import { startRestartablePostgres, type RestartablePostgres } from '../support/restartable-postgres';
import { bearerFor, call, startService, stopAllServices, type ServiceProcess } from '../support/service-process';
import { startReceiver, verify, type Receiver } from './webhook-support';
import { waitFor } from '../support/wait-for';

jest.setTimeout(180_000);

let postgres: RestartablePostgres;
let db: Database;
let service: ServiceProcess;
let auth: Record<string, string>;

beforeAll(async () => {
  postgres = await startRestartablePostgres();
  const databaseUrl = await postgres.createDatabase('rg_webhook_restart');
  await migrateDatabase(databaseUrl);
  db = createDatabaseClient(databaseUrl, { poolMax: 2 });
  const credential = await createCredential(db, 'sandbox', {
    companyId: 'restart-webhooks',
    displayName: 'Restart ERP',
    scopes: [...SCOPES],
    createdBy: 'test',
  });
  // Retries every 2 s for a minute: the receiver is away for seconds, not hours. (Every 500 ms,
  // 15 s in all, was shorter than the restart and recovery on a busy CI machine: an event created
  // first had used up its attempts before the receiver came back.)
  service = await startService(databaseUrl, { WEBHOOK_DELIVERY_CONCURRENCY: '4', WEBHOOK_RETRY_SCHEDULE_MS: Array(30).fill('2000').join(',') });
  auth = await bearerFor(service.origin, credential);
}, 180_000);

afterAll(async () => {
  await stopAllServices();
  await db?.$disconnect();
  await postgres?.remove();
});

const create = async () => {
  const created = await call(service.origin, 'POST', '/v1/rental-insurances', { ...auth, 'Idempotency-Key': newKey() }, guaranteeBody());
  expect({ status: created.status, networkError: created.networkError, output: service.alive() ? '' : service.output() }).toEqual({
    status: 201,
    networkError: undefined,
    output: '',
  });
};

test('a receiver down during a PostgreSQL restart gets every event once both are back', async () => {
  let receiver: Receiver = await startReceiver();
  const port = Number(new URL(receiver.url).port);
  const registered = await call(
    service.origin,
    'POST',
    '/v1/webhook-endpoints',
    { ...auth, 'Idempotency-Key': newKey() },
    { url: receiver.url, eventTypes: ['rental_insurance.status_changed'] },
  );
  expect(registered.status).toBe(201);
  const secret = registered.body!['secret'] as string;

  await receiver.close();
  for (let index = 0; index < 5; index += 1) await create();
  await postgres.stop();
  await new Promise((resolve) => setTimeout(resolve, 2000));
  await postgres.start();
  // The service answers again (its pool reconnects); five more events while the receiver is still down.
  const read = await waitFor(
    () => call(service.origin, 'GET', '/v1/rental-insurances', auth),
    (answer) => answer.status === 200,
    {
      withinMs: 20_000,
      everyMs: 200,
    },
  );
  if (read.status !== 200) throw new Error(`the service did not recover: ${read.status}\n${service.output().slice(0, 3000)}`);
  for (let index = 0; index < 5; index += 1) await create();
  receiver = await startReceiver(port);

  const events = await db.event.findMany({ where: { companyId: 'restart-webhooks' }, select: { id: true } });
  expect(events).toHaveLength(10);
  const wanted = new Set(events.map((event) => event.id));
  try {
    await receiver.waitFor((all) => [...wanted].every((id) => all.some((r) => r.event.id === id)), 60_000);
  } finally {
    await receiver.close();
  }
  for (const delivery of receiver.received) expect(verify(secret, delivery)).toEqual(delivery.event);
  const notSucceeded = () => db.webhookDelivery.count({ where: { status: { not: 'succeeded' } } });
  expect(await waitFor(notSucceeded, (count) => count === 0, { everyMs: 200 })).toBe(0);
  expect(service.alive()).toBe(true);
});
