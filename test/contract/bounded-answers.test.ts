/**
 * Every answer is bounded, however much is stored (issue 23 item 1).
 *
 * Static half: in every contract document, every array of every 2xx answer declares `maxItems`
 * (test/contract/bounded-arrays.ts walks them); a document with one array left unbounded fails,
 * which the walker is shown to catch on a copy of the partner document with one `maxItems` removed.
 *
 * Data half: more rows than any maximum are stored in the database directly (500 attempts on one
 * delivery, 300 revoked secrets on one credential, 250 history entries, events, statement entries,
 * deliveries, audit entries and request log lines), then every operation whose answer lists stored data is called
 * asking for as much as it accepts (`pageSize=100000`): each array of the answer, found by the
 * walker's paths, holds at most its `maxItems`, and the whole answer stays under 1 MB. The table
 * of calls must name exactly the operations whose answers hold arrays: a new listing operation
 * fails this test until it is added here.
 */
import request from 'supertest';
import { loadContract } from '../../src/contract/load-contract';
import { OPS, newDirector, newStaff, type Operator } from '../back-office/ops-support';
import { saoPauloDay } from '../support/factories';
import { API, asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { webhookClient } from '../webhooks/webhook-support';
import { arraysInAnswers, unboundedArrays, type ArrayInAnswer } from './bounded-arrays';

const DOCUMENTS = ['partner', 'back-office', 'auth', 'health'] as const;
const MANY = { attempts: 500, secrets: 300, rows: 250 };
const MAX_ANSWER_BYTES = 1024 * 1024;

const world = useTestApp({}, { agencies: 1 });
const partner = asPartner(world);
const hooks = webhookClient(world, () => world.agency);

describe('Every array of every answer declares its maximum', () => {
  it.each(DOCUMENTS)('then %s.yaml has no array without maxItems in a 2xx answer', (name) => {
    expect(unboundedArrays(loadContract(name))).toEqual([]);
  });

  it('then a document with one unbounded list fails the walk', () => {
    const document = loadContract('partner') as unknown as { components: { schemas: Record<string, any> } };
    delete document.components.schemas['WebhookDeliveryPage'].properties._embedded.properties.webhookDeliveries.maxItems;
    expect(unboundedArrays(document as never)).toEqual(['listWebhookDeliveries 200 application/json._embedded.webhookDeliveries']);
  });
});

interface Stored {
  guaranteeId: number;
  endpointId: string;
  deliveryId: string;
  credentialId: string;
  staff: Operator;
  director: Operator;
}

let stored: Stored;

beforeAll(async () => {
  const { db, agency } = world;
  const guarantee = await partner.newGuarantee();
  const endpoint = await hooks.register('http://127.0.0.1:9/hooks');
  const sent = await hooks.test(endpoint.id);
  expect(sent.status).toBe(202);
  const deliveryId = sent.body.id as string;
  const staff = await newStaff(world);
  const director = await newDirector(world, agency.companyId);
  const comment = await partner.comment(guarantee.id, 'Tenant asked for a copy of the proposal.');
  expect(comment.status).toBe(201);
  const many = MANY.rows;
  await db.$executeRaw`INSERT INTO webhook_attempts (delivery_id, response_status, latency_ms, error)
    SELECT ${deliveryId}::uuid, 500, 12, 'HTTP 500' FROM generate_series(1, ${MANY.attempts}::int)`;
  await db.$executeRaw`INSERT INTO webhook_deliveries (endpoint_id, event_id, company_id, status, created_at)
    SELECT endpoint_id, event_id, company_id, 'failed', created_at - interval '1 hour' FROM webhook_deliveries, generate_series(1, ${many}::int) WHERE id = ${deliveryId}::uuid`;
  await db.$executeRaw`INSERT INTO credential_secrets (id, credential_id, secret_hash, revoked_at)
    SELECT gen_random_uuid(), ${agency.credentialId}::uuid, 'revoked', now() - make_interval(secs => n) FROM generate_series(1, ${MANY.secrets}::int) AS n`;
  await db.$executeRaw`INSERT INTO history_entries (rental_insurance_id, kind, creator_name, creator_service_account, comment, previous_status, status)
    SELECT rental_insurance_id, kind, creator_name, creator_service_account, comment, previous_status, status
    FROM history_entries, generate_series(1, ${many}::int) WHERE rental_insurance_id = ${BigInt(guarantee.id)} AND kind = 'comment'`;
  // More documents than a guarantee may hold (100 through the API): their list is still one bounded page.
  await db.$executeRaw`INSERT INTO documents (history_entry_id, file_name, company_id, rental_insurance_id, content_type, size, sha256, creator_name, creator_service_account)
    SELECT id, repeat('n', 255), ${agency.companyId}, rental_insurance_id, 'application/pdf', 10485760, repeat('a', 64), creator_name, creator_service_account
    FROM history_entries, generate_series(1, ${many}::int) WHERE id = (SELECT max(id) FROM history_entries WHERE rental_insurance_id = ${BigInt(guarantee.id)})`;
  await db.$executeRaw`INSERT INTO events (id, company_id, type, data)
    SELECT gen_random_uuid(), company_id, type, data FROM events, generate_series(1, ${many}::int)
    WHERE company_id = ${agency.companyId} AND type = 'rental_insurance.comment_added'`;
  await db.$executeRaw`INSERT INTO statement_entries (company_id, date, description, amount, type)
    SELECT ${agency.companyId}, CURRENT_DATE, 'Fee', -1.5, 'fee' FROM generate_series(1, ${many}::int)`;
  await db.$executeRaw`INSERT INTO audit_log (actor, action, company_id, credential_id, details)
    SELECT actor, action, company_id, credential_id, details FROM audit_log, generate_series(1, ${many}::int)
    WHERE id = (SELECT max(id) FROM audit_log)`;
  await db.$executeRaw`INSERT INTO request_log (company_id, at, method, path, operation_id, status, error_code, error_details, correlation_id, duration_ms, credential_id, credential_name, source_address)
    SELECT ${agency.companyId}, now() - make_interval(secs => n), 'POST', '/v1/rental-insurances', 'createRentalInsurance', 400, 'validation_failed',
      array_fill('tenant.name: must contain a character other than whitespace'::text, ARRAY[50]), 'c-' || n, 2.5, ${agency.credentialId}::uuid, 'ERP', '127.0.0.1'
    FROM generate_series(1, ${many}::int) AS n`;
  stored = { guaranteeId: guarantee.id, endpointId: endpoint.id, deliveryId, credentialId: agency.credentialId, staff, director };
});

type Call = (s: Stored) => request.Test;
const BIG = 'page=0&pageSize=100000';
const asAgency =
  (path: string): Call =>
  () =>
    request(world.app).get(`${API}${path}`).set(world.agency.auth);
const asStaff =
  (path: (s: Stored) => string): Call =>
  (s) =>
    request(world.app)
      .get(`${OPS}${path(s)}`)
      .set(s.staff.auth);
const asDirector =
  (path: string): Call =>
  (s) =>
    request(world.app).get(`${OPS}${path}`).set(s.director.auth);
const today = () => saoPauloDay(0);

/** Every operation whose answer lists stored data, called for as much as it gives. */
const CALLS: Record<string, Call> = {
  listRentalInsurances: asAgency(`/v1/rental-insurances?${BIG}`),
  getRentalInsurance: (s) => asAgency(`/v1/rental-insurances/${s.guaranteeId}`)(s),
  listRentalInsuranceHistory: (s) => asAgency(`/v1/rental-insurances/${s.guaranteeId}/history?${BIG}`)(s),
  listCoTenants: (s) => asAgency(`/v1/rental-insurances/${s.guaranteeId}/co-tenants?${BIG}`)(s),
  listRentalInsuranceSignatures: (s) => asAgency(`/v1/rental-insurances/${s.guaranteeId}/signatures?${BIG}`)(s),
  listRentalInsuranceDocuments: (s) => asAgency(`/v1/rental-insurances/${s.guaranteeId}/documents?${BIG}`)(s),
  listDailySummaries: () => {
    const start = new Date(`${today()}T12:00:00Z`);
    start.setUTCDate(start.getUTCDate() - 365);
    return asAgency(`/v1/financial/daily-summaries?startDate=${start.toISOString().slice(0, 10)}&endDate=${today()}`)({} as Stored);
  },
  listStatementEntries: () => asAgency(`/v1/financial/statement-entries?startDate=${today()}&endDate=${today()}&${BIG}`)({} as Stored),
  listWebhookEndpoints: asAgency(`/v1/webhook-endpoints?${BIG}`),
  getWebhookEndpoint: (s) => asAgency(`/v1/webhook-endpoints/${s.endpointId}`)(s),
  listWebhookDeliveries: (s) => asAgency(`/v1/webhook-endpoints/${s.endpointId}/deliveries?${BIG}`)(s),
  listWebhookDeliveryAttempts: (s) => asAgency(`/v1/webhook-endpoints/${s.endpointId}/deliveries/${s.deliveryId}/attempts?${BIG}`)(s),
  listEvents: asAgency('/v1/events?limit=200'),
  listRequestLog: asAgency('/v1/request-log?limit=200'),
  getRentalInsuranceForReview: asStaff((s) => `/v1/rental-insurances/${s.guaranteeId}`),
  listRentalInsuranceHistoryForReview: asStaff((s) => `/v1/rental-insurances/${s.guaranteeId}/history?${BIG}`),
  listRentalInsuranceSignaturesForReview: asStaff((s) => `/v1/rental-insurances/${s.guaranteeId}/signatures?${BIG}`),
  listRentalInsuranceDocumentsForReview: asStaff((s) => `/v1/rental-insurances/${s.guaranteeId}/documents?${BIG}`),
  listAgencyCredentials: asDirector(`/v1/agency/credentials?${BIG}`),
  listCredentials: asStaff(() => `/v1/credentials?${BIG}`),
  getCredential: asStaff((s) => `/v1/credentials/${s.credentialId}`),
  listAgencyWebhookEndpoints: asStaff(() => `/v1/webhook-endpoints?companyId=${world.agency.companyId}&${BIG}`),
  listAgencyWebhookDeliveries: asStaff((s) => `/v1/webhook-endpoints/${s.endpointId}/deliveries?${BIG}`),
  listAgencyWebhookDeliveryAttempts: asStaff((s) => `/v1/webhook-endpoints/${s.endpointId}/deliveries/${s.deliveryId}/attempts?${BIG}`),
  listAuditLog: asStaff(() => `/v1/audit-log?${BIG}`),
  listAgencyRequestLog: asStaff(() => `/v1/request-log?companyId=${world.agency.companyId}&limit=200`),
};

/** The arrays of the GET operations' answers, per operationId. */
function listingArrays(): Map<string, ArrayInAnswer[]> {
  const byOperation = new Map<string, ArrayInAnswer[]>();
  for (const name of DOCUMENTS) {
    const document = loadContract(name);
    const gets = new Set(
      Object.values(document.paths).flatMap((item) => ((item as any).get?.operationId ? [(item as any).get.operationId as string] : [])),
    );
    for (const array of arraysInAnswers(document)) {
      const operationId = array.where.split(' ')[0]!;
      if (gets.has(operationId)) byOperation.set(operationId, [...(byOperation.get(operationId) ?? []), array]);
    }
  }
  return byOperation;
}

/** The arrays of `body` at a walker path (`.name`, `[]` for every item). */
function arraysAt(body: unknown, where: string): unknown[][] {
  const steps = where.replace(/^\S+ \S+ \S+?(?=\.|\[|$)/, '').match(/\.[A-Za-z_]\w*|\[\]/g) ?? [];
  let values: unknown[] = [body];
  for (const step of steps) {
    values = values.flatMap((value) => {
      if (step === '[]') return Array.isArray(value) ? value : [];
      const child = value && typeof value === 'object' ? (value as Record<string, unknown>)[step.slice(1)] : undefined;
      return child === undefined || child === null ? [] : [child];
    });
  }
  return values.filter(Array.isArray);
}

describe('When more is stored than any answer may hold', () => {
  it('then the table of calls names exactly the operations whose answers list stored data', () => {
    expect(Object.keys(CALLS).sort()).toEqual([...listingArrays().keys()].sort());
  });

  it.each([...listingArrays().entries()])('then %s answers every list within its maxItems and under 1 MB', async (operationId, arrays) => {
    const response = await CALLS[operationId]!(stored);
    expect(response.status).toBe(200);
    expect(Buffer.byteLength(response.text)).toBeLessThan(MAX_ANSWER_BYTES);
    for (const array of arrays) {
      for (const found of arraysAt(response.body, array.where)) expect(found.length).toBeLessThanOrEqual(array.maxItems!);
    }
  });

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
