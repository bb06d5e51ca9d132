/**
 * Scopes hold on every event channel (issue 23 item 2): an event reaches a credential only when
 * it may read the resource: statement events need ri:financial:read, guarantee events
 * ri:rental-insurances:read, beside ri:events:read (the feed) or ri:webhooks:manage (endpoints).
 * One agency, several credentials of it with different scopes; the events come from real writes
 * (a guarantee created through the API, a statement entry posted by the ledger service).
 */
import { randomUUID } from 'node:crypto';
import { expectErrorBody } from '../support/error-body';
import { asPartner } from '../support/partner-api';
import { useTestApp, type Agency } from '../support/test-app';
import { newDirector, opsClient } from '../back-office/ops-support';
import { daysFromToday, entry, postEntries } from '../financial/ledger-factory';
import { startReceiver, webhookClient, type Receiver } from './webhook-support';
import { waitFor } from '../support/wait-for';

const world = useTestApp({ WEBHOOK_RETRY_SCHEDULE_MS: '200', SCHEDULER_INTERVAL_MS: '0' });
const companyId = `scopes-${randomUUID()}`;
const GUARANTEE = 'rental_insurance.status_changed';
const STATEMENT = 'statement_entry.created';

let full: Agency;
const as = (scopes: string[]) => world.newAgency({ companyId, scopes });

beforeAll(async () => {
  full = await world.newAgency({ companyId });
  await asPartner(world, full).newGuarantee();
  await postEntries(world.db, companyId, [entry(daysFromToday(0), 'fee', 1500n, 'Monthly fee')]);
  // The feed shows an event once every transaction begun before it has ended (a few seconds at
  // most, the contract says): wait until both are in it, so each read below sees the same feed.
  const types = async () => {
    const seen = (await webhookClient(world, full).events({ limit: 200 })).body._embedded?.events as Array<{ type: string }> | undefined;
    return new Set(seen?.map((event) => event.type)).size;
  };
  await waitFor(types, (count) => count >= 2, { withinMs: 15_000, everyMs: 200 });
});

async function feedTypes(agency: Agency): Promise<string[]> {
  const response = await webhookClient(world, agency).events({ limit: 200 });
  expect(response.status).toBe(200);
  return [...new Set((response.body._embedded.events as Array<{ type: string }>).map((event) => event.type))].sort();
}

describe('When a credential reads the feed', () => {
  it('then it gets only the events whose resource its scopes may read', async () => {
    expect(await feedTypes(full)).toEqual([GUARANTEE, STATEMENT]);
    expect(await feedTypes(await as(['ri:events:read']))).toEqual([]);
    expect(await feedTypes(await as(['ri:events:read', 'ri:rental-insurances:read']))).toEqual([GUARANTEE]);
    expect(await feedTypes(await as(['ri:events:read', 'ri:financial:read']))).toEqual([STATEMENT]);
    // A filter naming a type the token may not read finds nothing, rather than leaking it.
    const filtered = await webhookClient(world, await as(['ri:events:read'])).events({ type: STATEMENT });
    expect(filtered.body._embedded.events).toEqual([]);
  });
});

describe('When a credential subscribes an endpoint', () => {
  it('then event types its token may not read are 400 event_type_not_readable, naming each', async () => {
    const manager = webhookClient(world, await as(['ri:webhooks:manage', 'ri:rental-insurances:read']));
    const refused = await manager.create({ url: 'http://127.0.0.1:9/hooks', eventTypes: [GUARANTEE, STATEMENT] });
    expectErrorBody(refused, 400, 'event_type_not_readable');
    expect(refused.body.details).toEqual([`eventTypes[1]: ${STATEMENT} needs the scope ri:financial:read, which this token does not hold`]);
    const onlyManage = webhookClient(world, await as(['ri:webhooks:manage']));
    expectErrorBody(await onlyManage.create({ url: 'http://127.0.0.1:9/hooks', eventTypes: [GUARANTEE] }), 400, 'event_type_not_readable');

    const created = await manager.register('http://127.0.0.1:9/hooks', [GUARANTEE]);
    // Another credential of the agency may manage it, but not subscribe it to what it cannot read.
    expectErrorBody(await onlyManage.patch(created.id, { eventTypes: [GUARANTEE] }, created.etag), 400, 'event_type_not_readable');
    expectErrorBody(await onlyManage.patch(created.id, { url: 'http://127.0.0.1:10/hooks' }, created.etag), 400, 'event_type_not_readable');
    const described = await onlyManage.patch(created.id, { description: 'ERP' }, created.etag);
    expect(described.status).toBe(200);
  });
});

describe('When the endpoint’s credential loses a scope or is revoked', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    world.beforeClose(() => receiver.close());
  });

  it('then events stored after the change are not delivered, and a queued one fails at its attempt without being sent', async () => {
    const owner = await as(['ri:webhooks:manage', 'ri:rental-insurances:read', 'ri:financial:read']);
    const hooks = webhookClient(world, owner);
    const endpoint = await hooks.register(receiver.url, [GUARANTEE, STATEMENT]);
    // No worker runs in the world's app: deliveries wait, so the order of events and revocation is ours.
    const partner = asPartner(world, full);
    await partner.newGuarantee();
    await postEntries(world.db, companyId, [entry(daysFromToday(0), 'fee', 700n, 'Before the change')]);
    const queued = (await hooks.deliveries(endpoint.id)).body._embedded.webhookDeliveries as Array<{ id: string; eventType: string }>;
    expect(queued.map((delivery) => delivery.eventType).sort()).toEqual([GUARANTEE, STATEMENT]);

    // The owner loses ri:financial:read: a later statement event gets no delivery; a guarantee event does.
    await world.db.credential.update({ where: { id: owner.credentialId }, data: { scopes: ['ri:webhooks:manage', 'ri:rental-insurances:read'] } });
    await postEntries(world.db, companyId, [entry(daysFromToday(0), 'fee', 800n, 'After the change')]);
    await partner.newGuarantee();
    const after = (await hooks.deliveries(endpoint.id)).body._embedded.webhookDeliveries as Array<{ eventType: string }>;
    expect(after.map((delivery) => delivery.eventType).sort()).toEqual([GUARANTEE, GUARANTEE, STATEMENT]);

    // Then the owner is revoked (by the agency's director); a worker starts and attempts what is queued.
    const director = await newDirector(world, companyId);
    expect((await opsClient(world, director).post(`/v1/agency/credentials/${owner.credentialId}/revoke`)).status).toBe(200);
    await world.anotherApp({ WEBHOOK_DELIVERY_CONCURRENCY: '2', WEBHOOK_RETRY_SCHEDULE_MS: '200', SCHEDULER_INTERVAL_MS: '0' });
    const reader = webhookClient(world, full);
    type Settled = Array<{ status: string; attempts: Array<{ responseStatus: number | null; error: string | null }> }>;
    const settled = await waitFor(
      async () => (await reader.deliveries(endpoint.id)).body._embedded.webhookDeliveries as Settled,
      (deliveries) => deliveries.every((delivery) => delivery.status !== 'pending'),
      { withinMs: 15_000, everyMs: 100 },
    );
    expect(settled.map((delivery) => delivery.status)).toEqual(['failed', 'failed', 'failed']);
    for (const delivery of settled) {
      expect(delivery.attempts).toEqual([
        expect.objectContaining({
          responseStatus: null,
          error: expect.stringMatching(/^not sent: the endpoint's credential is revoked or may no longer read /),
        }),
      ]);
    }
    expect(receiver.received).toEqual([]);
  });
});
