/**
 * Get and list check the Bearer token inside their own statement, and every partner write checks
 * it in the round trip of its BEGIN (src/auth/deferred-bearer.ts). Whatever the request and
 * whatever the statements find, a token that is unknown, expired, revoked or short of the scope
 * must be answered exactly as on every other operation: 401 (or 403), never the guarantee, never
 * 404, never an empty page, never a validation error, never a replay, and nothing written.
 */
import { expectErrorBody } from '../support/error-body';
import request from 'supertest';
import { API, startTestApp, type Agency, type TestApp } from '../support/test-app';
import { todayInSaoPaulo } from '../../src/database/column-values';
import { addDays } from '../../src/financial/date-range';
import { poolOf } from '../../src/database/prisma-client';
import { countGuarantees, created, getGuarantee, listGuarantees, patchGuarantee, postGuarantee, storedVersion } from '../guarantees/guarantee-http';
import { guaranteeBody, newKey } from '../support/factories';
import type { Response } from 'supertest';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const READ = 'ri:rental-insurances:read';
const WRITE = 'ri:rental-insurances:write';

/** An agency with one guarantee, both readable with its (still valid) token. */
async function agencyWithGuarantee(): Promise<{ agency: Agency; id: number; tenantCpf: string }> {
  const agency = await t.newAgency();
  const guarantee = await created(t, agency);
  expect((await getGuarantee(t, agency, guarantee.id)).status).toBe(200);
  return { agency, id: guarantee.id, tenantCpf: guarantee.tenant.cpfCnpj as string };
}

type Spoil = (agency: Agency) => Promise<Agency>;
/** The agency's own token, spoilt by a change in the database. */
const changed = (change: (agency: Agency) => Promise<unknown>): Spoil => async (agency) => {
  await change(agency);
  return agency;
};
const TOKEN_STATES: Array<[string, Spoil, number, string]> = [
  ['an unknown token', async (agency) => ({ ...agency, auth: { Authorization: 'Bearer sbx_at_0000000000000000000000000000000000000000000' } }), 401, 'unauthorized'],
  ['an expired token', changed((a) => t.db.accessToken.updateMany({ where: { credentialId: a.credentialId }, data: { expiresAt: new Date(Date.now() - 1000) } })), 401, 'unauthorized'],
  ['a token of a revoked credential', changed((a) => t.db.credential.update({ where: { id: a.credentialId }, data: { revokedAt: new Date() } })), 401, 'unauthorized'],
  ['a token of a revoked secret', changed((a) => t.db.credentialSecret.update({ where: { id: a.secretId }, data: { revokedAt: new Date() } })), 401, 'unauthorized'],
  ['a token without the read scope', changed((a) => t.db.accessToken.updateMany({ where: { credentialId: a.credentialId }, data: { scopes: [WRITE] } })), 403, 'insufficient_scope'],
];
/** The same states for writes: the last one lacks the write scope instead. */
const WRITE_TOKEN_STATES: Array<[string, Spoil, number, string]> = [
  ...TOKEN_STATES.slice(0, -1),
  ['a token without the write scope', changed((a) => t.db.accessToken.updateMany({ where: { credentialId: a.credentialId }, data: { scopes: [READ] } })), 403, 'insufficient_scope'],
];

function expectRefused(response: Response, status: number, code: string): void {
  expectErrorBody(response, status, code);
  expect(response.body).not.toHaveProperty('id');
  expect(response.body).not.toHaveProperty('_embedded');
  expect(response.headers['etag']).toBeUndefined();
  expect(response.headers['www-authenticate']).toMatch(/^Bearer realm="rental-guarantee"/);
}

describe.each(TOKEN_STATES)('When get or list is called with %s', (_state, spoil, status, code) => {
  test(`then reading an existing guarantee is ${status} ${code}, not the guarantee`, async () => {
    const { agency, id } = await agencyWithGuarantee();
    const spoilt = await spoil(agency);
    expectRefused(await getGuarantee(t, spoilt, id), status, code);
    expectRefused(await getGuarantee(t, spoilt, id, { 'If-None-Match': 'W/"1"' }), status, code);
  });

  test(`then reading a guarantee that does not exist, or an id that names nothing, is ${status}, not 404`, async () => {
    const { agency } = await agencyWithGuarantee();
    const spoilt = await spoil(agency);
    expectRefused(await getGuarantee(t, spoilt, 999_999_999), status, code);
    expectRefused(await getGuarantee(t, spoilt, 'not-a-number'), status, code);
  });

  test(`then a list, whether it finds rows or not and on any page, is ${status}, not a page`, async () => {
    const { agency, tenantCpf } = await agencyWithGuarantee();
    const spoilt = await spoil(agency);
    expectRefused(await listGuarantees(t, spoilt), status, code);
    expectRefused(await listGuarantees(t, spoilt, [['tenantCpfCnpj', tenantCpf]]), status, code);
    expectRefused(await listGuarantees(t, spoilt, [['propertyExternalId', 'NOTHING-MATCHES']]), status, code);
    expectRefused(await listGuarantees(t, spoilt, [['page', 1]]), status, code);
    expectRefused(await listGuarantees(t, spoilt, [['tenantName', 'a']]), status, code);
  });

  test(`then the history and the signatures of an existing guarantee, or of none, are ${status}`, async () => {
    const { agency, id } = await agencyWithGuarantee();
    const spoilt = await spoil(agency);
    for (const target of [id, 999_999_999, 'not-a-number']) {
      for (const part of ['history', 'signatures']) {
        expectRefused(await request(t.app).get(`${API}/v1/rental-insurances/${target}/${part}`).set(spoilt.auth), status, code);
      }
    }
  });

  test(`then a list with a query value that cannot be stored is ${status}, not 400`, async () => {
    const { agency } = await agencyWithGuarantee();
    const spoilt = await spoil(agency);
    expectRefused(await listGuarantees(t, spoilt, [['propertyExternalId', 'nul\u0000here']]), status, code);
  });
});

describe.each(TOKEN_STATES)('When the financial figures are read with %s', (_state, spoil, status, code) => {
  test(`then balance, daily summaries and statement entries are each ${status} ${code}, whatever the range or page, never figures`, async () => {
    const { agency } = await agencyWithGuarantee();
    const spoilt = await spoil(agency);
    expectRefused(await request(t.app).get(`${API}/v1/financial/balance`).set(spoilt.auth), status, code);
    const today = todayInSaoPaulo();
    for (const [startDate, endDate] of [[addDays(today, -30), today], [addDays(today, 10), addDays(today, 20)], ['2026-13-01', today]]) {
      const summaries = await request(t.app).get(`${API}/v1/financial/daily-summaries`).query({ startDate, endDate }).set(spoilt.auth);
      expectRefused(summaries, status, code);
      for (const extra of [{}, { page: 3 }, { type: 'fee' }, { type: 'no-such-type' }]) {
        const entries = await request(t.app).get(`${API}/v1/financial/statement-entries`).query({ startDate, endDate, ...extra }).set(spoilt.auth);
        expectRefused(entries, status, code);
      }
    }
  });
});

describe('When get and list are called with a valid token', () => {
  test('then the statement that checks the token answers as before: the guarantee, 304, 404 and pages', async () => {
    const { agency, id, tenantCpf } = await agencyWithGuarantee();
    const read = await getGuarantee(t, agency, id);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id, tenant: { cpfCnpj: tenantCpf } });
    expect(read.body).not.toHaveProperty('bearerToken');
    expect((await getGuarantee(t, agency, id, { 'If-None-Match': read.headers['etag']! })).status).toBe(304);
    expectErrorBody(await getGuarantee(t, agency, 999_999_999), 404, 'not_found');
    expectErrorBody(await getGuarantee(t, agency, 'not-a-number'), 404, 'not_found');
    const page = await listGuarantees(t, agency);
    expect(page.status).toBe(200);
    expect(page.body.page).toEqual({ size: 20, totalElements: 1, totalPages: 1, number: 0 });
    expect(page.body._embedded.rentalInsurances).toHaveLength(1);
    expect(page.body._embedded.rentalInsurances[0]).not.toHaveProperty('bearerToken');
    const empty = await listGuarantees(t, agency, [['propertyExternalId', 'NOTHING-MATCHES']]);
    expect(empty.status).toBe(200);
    expect(empty.body.page.totalElements).toBe(0);
    expect(empty.body._embedded.rentalInsurances).toEqual([]);
  });

  test('then the history and the signatures answer as before: the entries, and 404 for an id that names nothing', async () => {
    const { agency, id } = await agencyWithGuarantee();
    const history = await request(t.app).get(`${API}/v1/rental-insurances/${id}/history`).set(agency.auth);
    expect(history.status).toBe(200);
    expect(history.body).toHaveLength(1);
    expect(history.body[0]).toMatchObject({ status: { code: 'under_review' } });
    const signatures = await request(t.app).get(`${API}/v1/rental-insurances/${id}/signatures`).set(agency.auth);
    expect(signatures.status).toBe(200);
    expect(Array.isArray(signatures.body)).toBe(true);
    expectErrorBody(await request(t.app).get(`${API}/v1/rental-insurances/999999999/history`).set(agency.auth), 404, 'not_found');
    expectErrorBody(await request(t.app).get(`${API}/v1/rental-insurances/abc/signatures`).set(agency.auth), 404, 'not_found');
  });

  test('then a read-only token reads, and a token whose scopes are extended in the database reads at once', async () => {
    const { agency, id } = await agencyWithGuarantee();
    await t.db.accessToken.updateMany({ where: { credentialId: agency.credentialId }, data: { scopes: [READ] } });
    expect((await getGuarantee(t, agency, id)).status).toBe(200);
    expect((await listGuarantees(t, agency)).status).toBe(200);
  });
});

describe.each(WRITE_TOKEN_STATES)('When a write is sent with %s', (_state, spoil, status, code) => {
  test(`then a create is ${status} ${code} and creates nothing, and its key stays free`, async () => {
    const { agency } = await agencyWithGuarantee();
    const key = newKey();
    const spoilt = await spoil(agency);
    expectRefused(await postGuarantee(t, spoilt, guaranteeBody(), key), status, code);
    expect(await countGuarantees(t, agency)).toBe(1);
    expect(await t.db.idempotencyRecord.count({ where: { companyId: agency.companyId, key } })).toBe(0);
  });

  test(`then the retry of a create that succeeded is ${status}, not the stored response`, async () => {
    const agency = await t.newAgency();
    const key = newKey();
    const body = guaranteeBody();
    expect((await postGuarantee(t, agency, body, key)).status).toBe(201);
    const spoilt = await spoil(agency);
    const retry = await postGuarantee(t, spoilt, body, key);
    expectRefused(retry, status, code);
    expect(retry.headers['idempotent-replay']).toBeUndefined();
  });

  test(`then a patch is ${status}, even without If-Match or with a malformed body, and changes nothing`, async () => {
    const { agency, id } = await agencyWithGuarantee();
    const spoilt = await spoil(agency);
    expectRefused(await patchGuarantee(t, spoilt, id, { rentalAmount: 4321 }), status, code);
    expectRefused(await patchGuarantee(t, spoilt, id, { rentalAmount: 4321 }, { ifMatch: null }), status, code);
    expectRefused(await patchGuarantee(t, spoilt, id, '{not json'), status, code);
    expect(await storedVersion(t, id)).toBe(1);
  });
});

describe('When writes are sent with a valid token', () => {
  test('then the token checked with BEGIN names the creator, and a retry replays', async () => {
    const agency = await t.newAgency({ displayName: 'Deferred Check ERP' });
    const key = newKey();
    const body = guaranteeBody();
    const first = await postGuarantee(t, agency, body, key);
    expect(first.status).toBe(201);
    expect(first.body.creator).toEqual({ name: 'Deferred Check ERP', serviceAccount: true });
    const retry = await postGuarantee(t, agency, body, key);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replay']).toBe('true');
    expect(retry.text).toBe(first.text);
    const patched = await patchGuarantee(t, agency, first.body.id, { rentalAmount: 4321 });
    expect(patched.status).toBe(200);
    expect(patched.body.rentalAmount).toBe(4321);
  });
});

describe('When the financial figures are read with a valid token', () => {
  test('then each answers 200 with the figures of the token\'s company', async () => {
    const agency = await t.newAgency();
    const balance = await request(t.app).get(`${API}/v1/financial/balance`).set(agency.auth);
    expect(balance.status).toBe(200);
    expect(balance.body).toMatchObject({ balance: 0, credits: 0, debits: 0 });
    expect(balance.body).not.toHaveProperty('bearerToken');
    const today = todayInSaoPaulo();
    const days = await request(t.app).get(`${API}/v1/financial/daily-summaries`).query({ startDate: addDays(today, -2), endDate: today }).set(agency.auth);
    expect(days.status).toBe(200);
    expect(days.body).toHaveLength(3);
    const future = await request(t.app).get(`${API}/v1/financial/daily-summaries`).query({ startDate: addDays(today, 10), endDate: addDays(today, 20) }).set(agency.auth);
    expect(future.status).toBe(200);
    expect(future.body).toEqual([]);
    const entries = await request(t.app).get(`${API}/v1/financial/statement-entries`).query({ startDate: addDays(today, -2), endDate: today }).set(agency.auth);
    expect(entries.status).toBe(200);
    expect(entries.body.page).toEqual({ size: 20, totalElements: 0, totalPages: 0, number: 0 });
    expect(entries.body._embedded.statementEntries).toEqual([]);
  });
});

describe('When a connection lost the prepared statement of the token check', () => {
  test('then the next write on it prepares it again and succeeds, once', async () => {
    const agency = await t.newAgency();
    // A write leaves its connection on top of the idle pool (pg-pool reuses the last released first).
    expect((await postGuarantee(t, agency, guaranteeBody())).status).toBe(201);
    const client = await poolOf(t.db)!.connect();
    try {
      await client.query('DEALLOCATE bearer_token_check');
    } finally {
      client.release();
    }
    const next = await postGuarantee(t, agency, guaranteeBody());
    expect(next.status).toBe(201);
    expect(await countGuarantees(t, agency)).toBe(2);
    const prepared = await poolOf(t.db)!.query(`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name = 'bearer_token_check'`);
    expect(prepared.rows[0].n).toBe(1);
  });
});
