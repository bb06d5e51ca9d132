/**
 * Agencies never see each other. Driven by a table of every operationId of openapi/partner.yaml
 * (a new operation fails the first test until it is given an isolation check):
 *  - every id-bearing operation: agency B's fully valid request on agency A's guarantee gets
 *    404 not_found, answered exactly like a guarantee that does not exist (same status, code,
 *    message, details, body fields and header names), never 403, never data, never 304/412, and
 *    writes nothing, while the same request from A succeeds;
 *  - list filters by A's CPF, name, externalId or status find nothing for B;
 *  - financial endpoints show only the caller's own entries;
 *  - idempotency keys of one agency never collide with another's, even concurrently;
 *  - tokens of a revoked credential or of a revoked secret fail with 401 at once, on every operation.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { postStatementEntry } from '../../src/financial/ledger-service';
import { issueSecret, STAFF_REACH } from '../../src/auth/credentials';
import { staffActor } from '../../src/auth/audit-log';
import { todayInSaoPaulo } from '../../src/database/column-values';
import { addDays } from '../../src/financial/date-range';
import { backOffice } from '../support/back-office';
import { errorBodyProblem } from '../support/contract-rules';
import { snapshotDifference, takeSnapshot } from '../support/db-snapshot';
import { createGuarantee, guaranteeBody, nextCpf } from '../support/factories';
import { missingFromTable, OPERATIONS, pathOf, unknownToDocument, validRequest, type OperationEntry, type Target } from '../support/operation-table';
import { listen, rawRequest, type Listening, type RawRequest, type RawResponse } from '../support/raw-http';
import { API, issueToken, startTestApp, TOKEN_PATH, type Agency, type TestApp } from '../support/test-app';

let t: TestApp;
let server: Listening;
let agencyA: Agency;
let agencyB: Agency;
const send = (built: RawRequest) => rawRequest(server.origin, built);

beforeAll(async () => {
  t = await startTestApp();
  server = await listen(t.app);
  agencyA = await t.newAgency({ displayName: 'Agency A ERP' });
  agencyB = await t.newAgency({ displayName: 'Agency B ERP' });
  // B has guarantees of its own, so "nothing found" below is not just an empty database.
  await createGuarantee(t, agencyB);
});
afterAll(async () => {
  await server.close();
  await t.close();
});

/** How each operation's isolation is shown in this file. */
const ISOLATION: Record<string, 'foreign id' | 'list filters' | 'idempotency keys' | 'financial' | 'public, no agency data'> = {
  listRentalInsurances: 'list filters',
  createRentalInsurance: 'idempotency keys',
  getRentalInsurance: 'foreign id',
  patchRentalInsurance: 'foreign id',
  listRentalInsuranceHistory: 'foreign id',
  createRentalInsuranceComment: 'foreign id',
  listRentalInsuranceSignatures: 'foreign id',
  acceptRentalInsurance: 'foreign id',
  refuseRentalInsurance: 'foreign id',
  addCoTenant: 'foreign id',
  patchCoTenant: 'foreign id',
  removeCoTenant: 'foreign id',
  getFinancialBalance: 'financial',
  listDailySummaries: 'financial',
  listStatementEntries: 'financial',
  getOpenApiJson: 'public, no agency data',
  getOpenApiYaml: 'public, no agency data',
};

describe('The operation table', () => {
  test('lists every operation of openapi/partner.yaml, with its method and path, and nothing else', () => {
    expect(missingFromTable()).toEqual([]);
    expect(unknownToDocument()).toEqual([]);
  });

  test('gives every operation an isolation check, and every id-bearing path is checked for a foreign id', () => {
    expect(Object.keys(ISOLATION).sort()).toEqual(OPERATIONS.map((entry) => entry.operationId).sort());
    for (const entry of OPERATIONS.filter((candidate) => candidate.path.includes('{'))) expect([entry.operationId, ISOLATION[entry.operationId]]).toEqual([entry.operationId, 'foreign id']);
  });
});

/** A's guarantee in the state where every id-bearing operation succeeds: approved, with a co-tenant. */
async function approvedGuaranteeOfA(): Promise<Target> {
  const coTenantCpfCnpj = nextCpf();
  const created = await createGuarantee(t, agencyA, { coTenants: [{ cpfCnpj: coTenantCpfCnpj, name: 'Co Tenant of A' }], tenant: { ...(guaranteeBody()['tenant'] as object), name: 'Maria Isolada' } });
  await backOffice(t).approve(created.id);
  const { version } = await t.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(created.id) } });
  return { id: created.id, etag: `W/"${version}"`, coTenantCpfCnpj };
}

const VOLATILE_HEADERS = new Set(['date', 'x-correlation-id', 'content-length', 'connection', 'keep-alive']);

/** What an answer reveals, without what legitimately differs between two requests. */
function revealed(response: RawResponse, id: number | string) {
  const body = { ...(response.body ?? {}) } as Record<string, unknown>;
  return {
    status: response.status,
    code: body['code'],
    message: String(body['message']).split(String(id)).join('<id>'),
    details: body['details'],
    fields: Object.keys(body).sort(),
    headers: Object.keys(response.headers)
      .filter((name) => !VOLATILE_HEADERS.has(name))
      .sort(),
  };
}

const MISSING_ID = 8_000_000_000_001;

describe.each(OPERATIONS.filter((entry) => ISOLATION[entry.operationId] === 'foreign id').map((entry) => [entry.operationId, entry] as const))(
  "%s on another agency's guarantee",
  (_id, entry) => {
    test('is 404 not_found exactly like a missing id, writes nothing, and succeeds for the owner', async () => {
      const target = await approvedGuaranteeOfA();
      const before = await takeSnapshot(t.db);

      const foreign = await send(validRequest(entry, target, agencyB.auth.Authorization));
      const missing = await send(validRequest(entry, { ...target, id: MISSING_ID }, agencyB.auth.Authorization));
      expect({ status: foreign.status, code: foreign.body?.['code'], problem: errorBodyProblem(foreign) }).toEqual({ status: 404, code: 'not_found', problem: null });
      expect(revealed(foreign, target.id)).toEqual(revealed(missing, MISSING_ID));
      expect(foreign.headers['etag']).toBeUndefined();
      expect(foreign.text).not.toMatch(/Maria Isolada|Co Tenant of A|Agency A/);

      // Variations that would reveal existence if checked before ownership.
      const variations: Array<[string, (built: RawRequest & { headers: Record<string, string> }) => void]> = [['as is', () => undefined]];
      if (entry.ifMatch) variations.push(['stale If-Match', (built) => void (built.headers['If-Match'] = 'W/"999"')]);
      if (entry.operationId === 'getRentalInsurance') {
        variations.push(['If-None-Match of the current version', (built) => void (built.headers['If-None-Match'] = target.etag)]);
        variations.push(['If-None-Match *', (built) => void (built.headers['If-None-Match'] = '*')]);
      }
      if (entry.coTenantPath) variations.push(['a CPF that is no co-tenant', (built) => void (built.path = built.path.replace(target.coTenantCpfCnpj, nextCpf()))]);
      for (const [name, vary] of variations) {
        const onForeign = validRequest(entry, target, agencyB.auth.Authorization);
        const onMissing = validRequest(entry, { ...target, id: MISSING_ID }, agencyB.auth.Authorization);
        vary(onForeign);
        vary(onMissing);
        const [a, b] = [await send(onForeign), await send(onMissing)];
        expect({ name, ...revealed(a, target.id) }).toEqual({ name, ...revealed(b, MISSING_ID) });
        expect({ name, status: a.status }).toEqual({ name, status: 404 });
      }
      // A body B got wrong is answered the same for a foreign and for a missing id.
      if (entry.mediaType) {
        const onForeign = validRequest(entry, target, agencyB.auth.Authorization);
        const onMissing = validRequest(entry, { ...target, id: MISSING_ID }, agencyB.auth.Authorization);
        onForeign.body = onMissing.body = '{"unknownField": 1}';
        expect(revealed(await send(onForeign), target.id)).toEqual(revealed(await send(onMissing), MISSING_ID));
      }
      expect(snapshotDifference(before, await takeSnapshot(t.db))).toEqual([]);

      const own = await send(validRequest(entry, target, agencyA.auth.Authorization));
      expect({ status: own.status, text: own.status < 300 ? '' : own.text }).toEqual({ status: own.status >= 200 && own.status < 300 ? own.status : '2xx', text: '' });
    });
  },
);

describe("Lists never show another agency's guarantees", () => {
  let ofA: Target;
  let cpfOfA: string;
  beforeAll(async () => {
    ofA = await approvedGuaranteeOfA();
    cpfOfA = (await t.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(ofA.id) } })).tenantCpfCnpj;
  });

  const list = (agency: Agency, query: Array<[string, string]>) =>
    send({ method: 'GET', path: `${API}/v1/rental-insurances?${new URLSearchParams(query).toString()}`, headers: agency.auth });

  test.each([
    ['tenantCpfCnpj', () => cpfOfA],
    ['tenantCpfCnpj (formatted)', () => `${cpfOfA.slice(0, 3)}.${cpfOfA.slice(3, 6)}.${cpfOfA.slice(6, 9)}-${cpfOfA.slice(9)}`],
    ['tenantName', () => 'Maria Isolada'],
    ['tenantName (substring, other case)', () => 'isolad'],
    ['propertyExternalId', () => 'IMV-isolation-A'],
    ['status', () => 'approved'],
  ] as Array<[string, () => string]>)('filtering by %s of A finds nothing for B (and finds it for A)', async (label, value) => {
    const name = label.split(' ')[0]!;
    if (name === 'propertyExternalId') {
      await t.db.rentalInsurance.update({ where: { id: BigInt(ofA.id) }, data: { propertyExternalId: 'IMV-isolation-A' } });
    }
    const forB = await list(agencyB, [[name, value()], ['pageSize', '200']]);
    expect(forB.status).toBe(200);
    expect(forB.body?.['page']).toMatchObject({ totalElements: 0 });
    expect((forB.body?.['_embedded'] as { rentalInsurances: unknown[] }).rentalInsurances).toEqual([]);
    const forA = await list(agencyA, [[name, value()], ['pageSize', '200']]);
    expect((forA.body?.['_embedded'] as { rentalInsurances: Array<{ id: number }> }).rentalInsurances.map((item) => item.id)).toContain(ofA.id);
  });

  test("B's unfiltered pages (every status, every page) contain none of A's ids", async () => {
    const idsOfA = new Set((await t.db.rentalInsurance.findMany({ where: { companyId: agencyA.companyId }, select: { id: true } })).map((row) => Number(row.id)));
    const seen: number[] = [];
    for (let page = 0; page < 50; page += 1) {
      const response = await list(agencyB, [['page', String(page)], ['pageSize', '1']]);
      const items = (response.body?.['_embedded'] as { rentalInsurances: Array<{ id: number }> }).rentalInsurances;
      if (items.length === 0) break;
      seen.push(...items.map((item) => item.id));
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((id) => idsOfA.has(id))).toEqual([]);
  });
});

describe("Financial endpoints never show another agency's entries", () => {
  const today = todayInSaoPaulo();
  const range = `startDate=${addDays(today, -10)}&endDate=${today}`;
  beforeAll(async () => {
    await t.db.$transaction(async (tx) => {
      await postStatementEntry(tx, { companyId: agencyA.companyId, date: addDays(today, -2), description: 'Charge of A', type: 'charge_paid', amountCents: 777700n });
      await postStatementEntry(tx, { companyId: agencyA.companyId, date: addDays(today, -1), description: 'Fee of A', type: 'fee', amountCents: 1100n });
      await postStatementEntry(tx, { companyId: agencyB.companyId, date: addDays(today, -1), description: 'Charge of B', type: 'charge_paid', amountCents: 100n });
    });
  });
  const get = (agency: Agency, path: string) => send({ method: 'GET', path: `${API}/v1/financial/${path}`, headers: agency.auth });

  test('balance: each agency sees its own sums only', async () => {
    expect((await get(agencyB, 'balance')).body).toEqual({ balance: 1, credits: 1, debits: 0 });
    expect((await get(agencyA, 'balance')).body).toEqual({ balance: 7766, credits: 7777, debits: 11 });
  });

  test('daily summaries: B sees only its own movement', async () => {
    const days = (await get(agencyB, `daily-summaries?${range}`)).body as unknown as Array<{ credits: number; debits: number }>;
    expect(days.reduce((sum, day) => sum + day.credits, 0)).toBe(1);
    expect(days.reduce((sum, day) => sum + day.debits, 0)).toBe(0);
  });

  test('statement entries: B sees only its own, for every type filter', async () => {
    for (const query of [range, `${range}&type=charge_paid`, `${range}&type=fee`, `${range}&type=fee&type=charge_paid`]) {
      const response = await get(agencyB, `statement-entries?${query}`);
      const entries = (response.body?.['_embedded'] as { statementEntries: Array<{ description: string }> }).statementEntries;
      expect(entries.map((entry) => entry.description).filter((description) => description.includes('of A'))).toEqual([]);
    }
    const mine = await get(agencyA, `statement-entries?${range}`);
    expect((mine.body?.['_embedded'] as { statementEntries: unknown[] }).statementEntries).toHaveLength(2);
  });
});

describe('Idempotency keys never collide across agencies', () => {
  const create = (agency: Agency, key: string, body: unknown) =>
    send({ method: 'POST', path: `${API}/v1/rental-insurances`, headers: { ...agency.auth, 'Idempotency-Key': key, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

  test('the same key and body from two agencies creates two guarantees, each replayed to its own agency', async () => {
    const key = `shared-${randomUUID()}`;
    const body = guaranteeBody();
    const ofA = await create(agencyA, key, body);
    const ofB = await create(agencyB, key, body);
    expect([ofA.status, ofB.status]).toEqual([201, 201]);
    expect([ofA.headers['idempotent-replay'], ofB.headers['idempotent-replay']]).toEqual(['false', 'false']);
    expect(ofB.body?.['id']).not.toBe(ofA.body?.['id']);
    const replayA = await create(agencyA, key, body);
    const replayB = await create(agencyB, key, body);
    expect([replayA.headers['idempotent-replay'], replayA.body?.['id']]).toEqual(['true', ofA.body?.['id']]);
    expect([replayB.headers['idempotent-replay'], replayB.body?.['id']]).toEqual(['true', ofB.body?.['id']]);
  });

  test("a key A used for another body is new for B (no idempotency_key_reused across agencies)", async () => {
    const key = `shared-${randomUUID()}`;
    expect((await create(agencyA, key, guaranteeBody())).status).toBe(201);
    const forB = await create(agencyB, key, guaranteeBody());
    expect([forB.status, forB.headers['idempotent-replay']]).toEqual([201, 'false']);
  });

  test('the same key sent by both agencies at the same moment succeeds for both (locks are per agency)', async () => {
    for (let round = 0; round < 5; round += 1) {
      const key = `concurrent-${randomUUID()}`;
      const [ofA, ofB] = await Promise.all([create(agencyA, key, guaranteeBody()), create(agencyB, key, guaranteeBody())]);
      expect([ofA.status, ofB.status, ofA.text.slice(0, 0)]).toEqual([201, 201, '']);
    }
  });

  test('a key used by A on a write of its own guarantee is new for B on its own guarantee', async () => {
    const key = `shared-${randomUUID()}`;
    const ofA = await approvedGuaranteeOfA();
    const ownOfB = await createGuarantee(t, agencyB);
    const comment = (agency: Agency, id: number) =>
      send({ method: 'POST', path: `${API}/v1/rental-insurances/${id}/comments`, headers: { ...agency.auth, 'Idempotency-Key': key, 'Content-Type': 'application/json' }, body: '{"comment":"same key"}' });
    expect((await comment(agencyA, Number(ofA.id))).status).toBe(201);
    const forB = await comment(agencyB, ownOfB.id);
    expect([forB.status, forB.headers['idempotent-replay']]).toEqual([201, 'false']);
  });
});

describe('Public operations carry no agency data', () => {
  test.each(OPERATIONS.filter((entry) => ISOLATION[entry.operationId] === 'public, no agency data').map((entry) => [entry.operationId, entry] as const))(
    '%s answers the same document to anyone, without a token',
    async (_id, entry) => {
      const anonymous = await send({ method: 'GET', path: pathOf(entry, { id: 0, coTenantCpfCnpj: '' }) });
      const withToken = await send({ method: 'GET', path: pathOf(entry, { id: 0, coTenantCpfCnpj: '' }), headers: agencyA.auth });
      expect(anonymous.status).toBe(200);
      expect(withToken.text).toBe(anonymous.text);
      expect(anonymous.text).not.toMatch(/Agency A ERP|Maria Isolada/);
    },
  );
});

describe('Revoked credentials and secrets', () => {
  const secured = OPERATIONS.filter((entry) => entry.access !== 'public');

  /** A new agency with one guarantee of its own (approved, one co-tenant), and requests that work for it. */
  async function agencyWithGuarantee(companyId?: string) {
    const agency = await t.newAgency(companyId ? { companyId } : {});
    const coTenantCpfCnpj = nextCpf();
    const created = await createGuarantee(t, agency, { coTenants: [{ cpfCnpj: coTenantCpfCnpj, name: 'Co' }] });
    await backOffice(t).approve(created.id);
    const { version } = await t.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(created.id) } });
    return { agency, target: { id: created.id, etag: `W/"${version}"`, coTenantCpfCnpj } as Target };
  }

  async function expectEveryOperationRefused(agency: Agency, target: Target): Promise<void> {
    const before = await takeSnapshot(t.db);
    for (const entry of secured) {
      const response = await send(validRequest(entry, target, agency.auth.Authorization));
      expect({ operation: entry.operationId, status: response.status, code: response.body?.['code'], problem: errorBodyProblem(response) }).toEqual({
        operation: entry.operationId,
        status: 401,
        code: 'unauthorized',
        problem: null,
      });
      expect(response.headers['www-authenticate']).toBe('Bearer realm="rental-guarantee", error="invalid_token"');
    }
    expect(snapshotDifference(before, await takeSnapshot(t.db))).toEqual([]);
  }

  async function expectWorks(agency: Agency, target: Target, entry: OperationEntry = secured.find((candidate) => candidate.operationId === 'getRentalInsurance')!) {
    const response = await send(validRequest(entry, target, agency.auth.Authorization));
    expect(response.status).toBe(200);
  }

  test('a revoked credential: every operation answers 401 at once, and no new token is issued', async () => {
    const { agency, target } = await agencyWithGuarantee();
    const sibling = await t.newAgency({ companyId: agency.companyId });
    await expectWorks(agency, target);
    await t.db.credential.update({ where: { id: agency.credentialId }, data: { revokedAt: new Date() } });
    await expectEveryOperationRefused(agency, target);
    // Another credential of the same agency is not affected.
    await expectWorks(sibling, target);
    const refused = await request(t.app).post(TOKEN_PATH).auth(agency.clientId, agency.clientSecret).type('form').send({ grant_type: 'client_credentials' });
    expect(refused.status).toBe(401);
  });

  test('a revoked secret: its tokens answer 401 at once on every operation; a second active secret keeps working', async () => {
    const { agency, target } = await agencyWithGuarantee();
    const second = await t.db.$transaction((tx) => issueSecret(tx, 'sandbox', STAFF_REACH, agency.credentialId, staffActor('Isolation suite', 'cli')));
    const tokenOfSecond = await issueToken(t.app, agency.clientId, second.clientSecret);
    await expectWorks(agency, target);
    await t.db.credentialSecret.update({ where: { id: agency.secretId }, data: { revokedAt: new Date() } });
    await expectEveryOperationRefused(agency, target);
    await expect(issueToken(t.app, agency.clientId, agency.clientSecret)).rejects.toThrow(/401/);
    await expectWorks({ ...agency, token: tokenOfSecond, auth: { Authorization: `Bearer ${tokenOfSecond}` } }, target);
  });

  test('a revoked credential stops every token it issued, not only the latest', async () => {
    const { agency, target } = await agencyWithGuarantee();
    const second = await issueToken(t.app, agency.clientId, agency.clientSecret);
    await t.db.credential.update({ where: { id: agency.credentialId }, data: { revokedAt: new Date() } });
    await expectEveryOperationRefused(agency, target);
    await expectEveryOperationRefused({ ...agency, token: second, auth: { Authorization: `Bearer ${second}` } }, target);
  });
});
