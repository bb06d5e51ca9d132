/**
 * Caps on what one answer embeds, whatever is stored (issue 23 item 1): a delivery embeds its latest
 * 20 attempts of 500 and counts them all, the attempts list pages through every one; a credential
 * shows its active secret and its 9 latest revoked ones of 300. Every answer's worst case in bytes
 * is computed from the contract (answer-size.test.ts) and proved under the production heap with the
 * store filled to it (test/multiprocess/listings-under-heap.test.ts).
 */
import request from 'supertest';
import { OPS, newStaff, type Operator } from '../back-office/ops-support';
import { API, asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { webhookClient } from '../webhooks/webhook-support';

const MANY = { attempts: 500, secrets: 300 };

const world = useTestApp({}, { agencies: 1 });
const partner = asPartner(world);
const hooks = webhookClient(world, () => world.agency);

interface Stored {
  endpointId: string;
  deliveryId: string;
  credentialId: string;
  staff: Operator;
}

let stored: Stored;

beforeAll(async () => {
  const { db, agency } = world;
  await partner.newGuarantee();
  const endpoint = await hooks.register('http://127.0.0.1:9/hooks');
  const sent = await hooks.test(endpoint.id);
  expect(sent.status).toBe(202);
  const deliveryId = sent.body.id as string;
  const staff = await newStaff(world);
  await db.$executeRaw`INSERT INTO webhook_attempts (delivery_id, response_status, latency_ms, error)
    SELECT ${deliveryId}::uuid, 500, 12, 'HTTP 500' FROM generate_series(1, ${MANY.attempts}::int)`;
  await db.$executeRaw`INSERT INTO credential_secrets (id, credential_id, secret_hash, revoked_at)
    SELECT gen_random_uuid(), ${agency.credentialId}::uuid, 'revoked', now() - make_interval(secs => n) FROM generate_series(1, ${MANY.secrets}::int) AS n`;
  stored = { endpointId: endpoint.id, deliveryId, credentialId: agency.credentialId, staff };
});

describe('When more is stored than an answer embeds', () => {
  it('then a delivery embeds its latest 20 of 500 attempts, counts them all, and pages through them', async () => {
    const deliveries = await hooks.deliveries(stored.endpointId, { pageSize: 200 });
    const delivery = (deliveries.body._embedded.webhookDeliveries as Array<{ id: string; attemptCount: number; attempts: unknown[] }>).find(
      (candidate) => candidate.id === stored.deliveryId,
    )!;
    expect(delivery.attemptCount).toBe(MANY.attempts);
    expect(delivery.attempts).toHaveLength(20);
    const last = await request(world.app)
      .get(`${API}/v1/webhook-endpoints/${stored.endpointId}/deliveries/${stored.deliveryId}/attempts?page=2&pageSize=200`)
      .set(world.agency.auth);
    expect(last.status).toBe(200);
    expect(last.body.page).toEqual({ size: 200, totalElements: MANY.attempts, totalPages: 3, number: 2 });
    expect(last.body._embedded.webhookAttempts).toHaveLength(MANY.attempts - 400);
  });

  it('then a credential shows its active secret and its 9 latest revoked ones of 300', async () => {
    const response = await request(world.app).get(`${OPS}/v1/credentials/${stored.credentialId}`).set(stored.staff.auth);
    const secrets = response.body.secrets as Array<{ id: string; revokedAt: string | null; createdAt: string }>;
    expect(secrets).toHaveLength(10);
    expect(secrets.filter((secret) => secret.revokedAt === null)).toHaveLength(1);
    const revokedAt = secrets.flatMap((secret) => (secret.revokedAt ? [Date.parse(secret.revokedAt)] : []));
    // The latest revoked: the stored ones were revoked 1 s, 2 s, ... 300 s ago.
    expect(Math.min(...revokedAt)).toBeGreaterThan(Date.now() - 60_000);
  });
});
