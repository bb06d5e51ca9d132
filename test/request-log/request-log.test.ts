/**
 * GET /v1/request-log (issue 26 item 1), the partner's story through HTTP against the real app and
 * database: an integration makes requests (a keyed create and its replay, a 404, a 400 with
 * details, a 403 for a scope it lacks), then reads them back from its request log, newest first,
 * with every field, filtered and paged, and never a secret, a token or a body. Another agency never
 * sees them; a credential without ri:request-log:read gets 403; a request without a valid token is
 * in no log. The lines are written behind the answers (request-log-writer.ts): the test flushes the
 * app's buffer where a partner would wait a second. Staff read the same lines in the back office.
 */
import request from 'supertest';
import { SCOPES } from '../../src/auth/scopes';
import type { components } from '../../src/generated/partner-api';
import { newKey, guaranteeBody } from '../support/factories';
import { API, asPartner, RFC3339_MS, withAuthorization, withQuery } from '../support/partner-api';
import { useTestApp, type Agency } from '../support/test-app';
import { newDirector, newStaff, opsClient } from '../back-office/ops-support';

const LOG = `${API}/v1/request-log`;
const world = useTestApp({ SCHEDULER_INTERVAL_MS: '0' }, { agencies: [{ displayName: 'ERP Imobiliária Sol' }, { displayName: 'Other agency ERP' }] });
const agencyA = () => world.agencies[0]!;
const agencyB = () => world.agencies[1]!;
const partner = asPartner(world, agencyA);

type Line = components['schemas']['RequestLogLine'];

async function readLog(who: Agency, query: Record<string, string | number | string[]> = {}): Promise<{ lines: Line[]; body: Record<string, any> }> {
  await world.flushRequestLog();
  const response = await request(world.app).get(withQuery(LOG, query)).set(who.auth);
  expect(response.status).toBe(200);
  return { lines: response.body._embedded.requestLog as Line[], body: response.body };
}

const byCorrelation = (lines: Line[], id: string) => lines.find((line) => line.correlationId === id);

describe('When an integration makes requests and then reads its request log', () => {
  const key = newKey();
  let guaranteeId: number;
  let secretlessBody: string;

  beforeAll(async () => {
    const body = guaranteeBody();
    secretlessBody = JSON.stringify(body);
    const created = await partner.create(body, { key }).set('X-Correlation-Id', 'rl-create-1');
    expect(created.status).toBe(201);
    guaranteeId = created.body.id;
    const replayed = await partner.create(body, { key }).set('X-Correlation-Id', 'rl-create-replay');
    expect(replayed.headers['idempotent-replay']).toBe('true');
    expect((await partner.get(999_999_999).set('X-Correlation-Id', 'rl-missing')).status).toBe(404);
    const invalid = await partner
      .create({ ...body, rentalAmount: -1, tenant: { ...(body['tenant'] as object), email: 'nope' } })
      .set('X-Correlation-Id', 'rl-invalid');
    expect(invalid.status).toBe(400);
    expect((await partner.get(guaranteeId).set('X-Correlation-Id', 'rl-get')).status).toBe(200);
  });

  it('then each request is a line with every field, newest first', async () => {
    const { lines } = await readLog(agencyA());
    const ids = lines.map((line) => line.correlationId);
    expect(ids.slice(ids.indexOf('rl-get'), ids.indexOf('rl-create-1') + 1)).toEqual([
      'rl-get',
      'rl-invalid',
      'rl-missing',
      'rl-create-replay',
      'rl-create-1',
    ]);
    const times = lines.map((line) => line.at);
    expect([...times].sort().reverse()).toEqual(times);

    const created = byCorrelation(lines, 'rl-create-1')!;
    expect(created).toEqual({
      cursor: expect.stringMatching(/^[A-Za-z0-9_-]{1,64}$/),
      at: expect.stringMatching(RFC3339_MS),
      method: 'POST',
      path: '/v1/rental-insurances',
      resourceId: null,
      operationId: 'createRentalInsurance',
      status: 201,
      error: null,
      correlationId: 'rl-create-1',
      idempotencyKey: key,
      idempotentReplay: false,
      durationMs: expect.any(Number),
      credential: { id: agencyA().credentialId, name: 'ERP Imobiliária Sol' },
      sourceAddress: expect.stringMatching(/^(127\.0\.0\.1|::1)$/),
    });
    expect(created.durationMs).toBeGreaterThan(0);
    expect(Date.now() - Date.parse(created.at)).toBeLessThan(120_000);
    expect(byCorrelation(lines, 'rl-create-replay')).toMatchObject({ status: 201, idempotencyKey: key, idempotentReplay: true, error: null });
    expect(byCorrelation(lines, 'rl-missing')).toMatchObject({
      method: 'GET',
      path: '/v1/rental-insurances/{id}',
      resourceId: '999999999',
      operationId: 'getRentalInsurance',
      status: 404,
      error: { code: 'not_found', details: [] },
      idempotencyKey: null,
      idempotentReplay: null,
    });
    const invalid = byCorrelation(lines, 'rl-invalid')!;
    expect(invalid).toMatchObject({ status: 400, idempotentReplay: null, error: { code: 'validation_failed' } });
    expect(invalid.idempotencyKey).toEqual(expect.any(String));
    expect(invalid.error!.details).toEqual(
      expect.arrayContaining([expect.stringContaining('rentalAmount'), expect.stringContaining('tenant.email')]),
    );
    expect(byCorrelation(lines, 'rl-get')).toMatchObject({ resourceId: String(guaranteeId), status: 200, error: null });
  });

  it('then no line holds a secret, a token or a body', async () => {
    const { body } = await readLog(agencyA());
    const text = JSON.stringify(body);
    expect(text).not.toContain(agencyA().token);
    expect(text).not.toContain(agencyA().clientSecret);
    expect(text).not.toContain(agencyA().clientId);
    const tenant = JSON.parse(secretlessBody).tenant as { name: string; cpfCnpj: string };
    expect(text).not.toContain(tenant.name);
    expect(text).not.toContain(tenant.cpfCnpj);
  });

  it('then a refusal for a missing scope and a HEAD are lines too, and requests without a valid token are in no log', async () => {
    const noFinancial = await world.newAgency({
      companyId: agencyA().companyId,
      displayName: 'Reader without money',
      scopes: ['ri:rental-insurances:read'],
    });
    expect((await request(world.app).get(`${API}/v1/financial/balance`).set(noFinancial.auth).set('X-Correlation-Id', 'rl-403')).status).toBe(403);
    expect(
      (await request(world.app).head(`${API}/v1/rental-insurances/${guaranteeId}`).set(noFinancial.auth).set('X-Correlation-Id', 'rl-head')).status,
    ).toBe(200);
    expect(
      (await request(world.app).get(`${API}/v1/rental-insurances`).set('Authorization', 'Bearer sbx_not-a-token').set('X-Correlation-Id', 'rl-401'))
        .status,
    ).toBe(401);
    expect((await request(world.app).get(`${API}/v1/nowhere`).set(agencyA().auth).set('X-Correlation-Id', 'rl-route')).status).toBe(404);
    const { lines } = await readLog(agencyA(), { limit: 200 });
    expect(byCorrelation(lines, 'rl-403')).toMatchObject({
      status: 403,
      operationId: 'getFinancialBalance',
      error: { code: 'insufficient_scope', details: [] },
      credential: { id: noFinancial.credentialId, name: 'Reader without money' },
    });
    expect(byCorrelation(lines, 'rl-head')).toMatchObject({ method: 'HEAD', status: 200, operationId: 'getRentalInsurance' });
    expect(byCorrelation(lines, 'rl-401')).toBeUndefined();
    expect(byCorrelation(lines, 'rl-route')).toBeUndefined();
    expect(await world.db.requestLogLine.count({ where: { correlationId: { in: ['rl-401', 'rl-route'] } } })).toBe(0);
  });

  it('then a path parameter is logged percent-encoded (NUL included) and cut to 100 characters, and its batch is written', async () => {
    await world.flushRequestLog();
    const odd = await request(world.app).get(`${API}/v1/rental-insurances/ab%00cd`).set(agencyA().auth).set('X-Correlation-Id', 'rl-nul');
    expect(odd.status).toBe(404);
    await partner.get(guaranteeId).set('X-Correlation-Id', 'rl-nul-neighbour');
    const { lines } = await readLog(agencyA(), { limit: 10 });
    expect(byCorrelation(lines, 'rl-nul')).toMatchObject({ resourceId: 'ab%00cd', status: 404 });
    const long = await request(world.app)
      .get(`${API}/v1/rental-insurances/${'%C3%A9'.repeat(60)}`)
      .set(agencyA().auth)
      .set('X-Correlation-Id', 'rl-long');
    expect(long.status).toBe(404);
    const later = (await readLog(agencyA(), { limit: 10 })).lines;
    // 100 characters at most, never a cut escape: 16 whole "%C3%A9" and nothing of the 17th.
    expect(byCorrelation(later, 'rl-long')?.resourceId).toBe('%C3%A9'.repeat(16));
    expect(byCorrelation(lines, 'rl-nul-neighbour')).toMatchObject({ status: 200 });
  });

  it('then the filters narrow the lines, and combine', async () => {
    const only = async (query: Record<string, string | number | string[]>) => (await readLog(agencyA(), { limit: 200, ...query })).lines;
    expect((await only({ correlationId: 'rl-missing' })).map((line) => line.status)).toEqual([404]);
    expect((await only({ idempotencyKey: key })).map((line) => line.correlationId)).toEqual(['rl-create-replay', 'rl-create-1']);
    expect((await only({ statusClass: ['4xx'] })).every((line) => line.status >= 400 && line.status < 500)).toBe(true);
    expect((await only({ statusClass: ['4xx'] })).map((line) => line.correlationId)).toEqual(
      expect.arrayContaining(['rl-missing', 'rl-invalid', 'rl-403']),
    );
    const successes = await only({ statusClass: ['2xx', '3xx'] });
    expect(successes.length).toBeGreaterThan(0);
    expect(successes.every((line) => line.status < 400)).toBe(true);
    expect((await only({ operationId: 'createRentalInsurance', statusClass: '2xx' })).map((line) => line.correlationId)).toEqual([
      'rl-create-replay',
      'rl-create-1',
    ]);
    expect(await only({ credentialId: agencyA().credentialId, operationId: 'getFinancialBalance' })).toEqual([]);
    expect(await only({ operationId: 'noSuchOperation' })).toEqual([]);
  });

  it('then paging by cursor walks every line once, newest first, and the last page has no next', async () => {
    for (let i = 0; i < 5; i++) await partner.get(guaranteeId).set('X-Correlation-Id', `rl-page-${i}`);
    const { lines: all } = await readLog(agencyA(), { limit: 200 });
    const seen: Line[] = [];
    let page = await readLog(agencyA(), { limit: 3 });
    for (let pages = 0; pages < 100; pages++) {
      expect(page.lines.length).toBeLessThanOrEqual(3);
      seen.push(...page.lines);
      const next = page.body['_links'].next as { href: string; query: Record<string, string | number> } | undefined;
      if (!next) break;
      expect(next.query).toEqual({ after: page.lines[2]!.cursor, limit: 3 });
      page = await readLog(agencyA(), next.query);
    }
    // The reads themselves are lines too: compare the lines that existed when `all` was read.
    const older = seen.filter((line) => all.some((one) => one.cursor === line.cursor));
    expect(older.map((line) => line.cursor)).toEqual(all.map((line) => line.cursor));
    expect(new Set(seen.map((line) => line.cursor)).size).toBe(seen.length);
  });

  it('then bad filters and a foreign cursor are 400 validation_failed', async () => {
    await world.flushRequestLog();
    for (const query of [
      { after: 'bm90LWEtY3Vyc29y' },
      { limit: 0 },
      { limit: 201 },
      { statusClass: '6xx' },
      { credentialId: 'not-a-uuid' },
      { after: '***' },
    ]) {
      const response = await request(world.app).get(withQuery(LOG, query)).set(agencyA().auth);
      expect([JSON.stringify(query), response.status, response.body.code]).toEqual([JSON.stringify(query), 400, 'validation_failed']);
    }
  });
});

describe('When another agency, or a credential without the scope, reads the request log', () => {
  it('then agency B sees only its own lines, never agency A', async () => {
    await asPartner(world, agencyA()).list().set('X-Correlation-Id', 'rl-iso-a');
    await asPartner(world, agencyB()).list().set('X-Correlation-Id', 'rl-iso-b');
    const { lines } = await readLog(agencyB(), { limit: 200 });
    expect(lines.map((line) => line.correlationId)).toContain('rl-iso-b');
    expect(lines.every((line) => line.credential.id === agencyB().credentialId)).toBe(true);
    expect((await readLog(agencyB(), { correlationId: 'rl-iso-a' })).lines).toEqual([]);
    expect((await readLog(agencyB(), { credentialId: agencyA().credentialId })).lines).toEqual([]);
  });

  it('then every other partner scope gets 403 insufficient_scope, and no token 401', async () => {
    const others = SCOPES.filter((scope) => scope !== 'ri:request-log:read');
    const without = await world.newAgency({ companyId: agencyA().companyId, scopes: [...others] });
    const refused = await request(world.app).get(LOG).set(without.auth);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('insufficient_scope');
    expect(refused.headers['www-authenticate']).toContain('scope="ri:request-log:read"');
    const only = await world.newAgency({ companyId: agencyA().companyId, scopes: ['ri:request-log:read'] });
    expect((await request(world.app).get(LOG).set(only.auth)).status).toBe(200);
    expect((await request(world.app).get(`${API}/v1/rental-insurances`).set(only.auth)).status).toBe(403);
    expect((await asPartner(world, withAuthorization('')).request('get', LOG)).status).toBe(401);
  });
});

describe('When staff read an agency’s request log in the back office', () => {
  it('then they see the lines the agency sees, with the same filters and cursor, and their own requests are in no log', async () => {
    const staff = await newStaff(world, { scopes: ['ops:credentials:admin'] });
    const ops = opsClient(world, staff);
    const { lines: agencySees } = await readLog(agencyA(), { statusClass: '4xx', limit: 200 });
    const answered = await ops
      .get(withQuery('/v1/request-log', { companyId: agencyA().companyId, statusClass: '4xx', limit: 200 }))
      .set('X-Correlation-Id', 'rl-staff');
    expect(answered.status).toBe(200);
    const staffSees = answered.body._embedded.requestLog as Line[];
    expect(staffSees.map((line) => line.cursor)).toEqual(agencySees.map((line) => line.cursor));
    expect(staffSees.find((line) => line.correlationId === 'rl-invalid')).toEqual(agencySees.find((line) => line.correlationId === 'rl-invalid'));
    const first = await ops.get(withQuery('/v1/request-log', { companyId: agencyA().companyId, limit: 1 }));
    const next = first.body._links.next as { query: Record<string, string | number> };
    expect(next.query).toEqual({ companyId: agencyA().companyId, after: first.body._embedded.requestLog[0].cursor, limit: 1 });
    expect((await ops.get(withQuery('/v1/request-log', next.query))).status).toBe(200);
    expect((await ops.get(withQuery('/v1/request-log', { companyId: 'no-such-agency' }))).body._embedded.requestLog).toEqual([]);
    expect((await ops.get(withQuery('/v1/request-log', { companyId: agencyA().companyId, after: 'bm9wZQ' }))).status).toBe(400);
    expect((await ops.get('/v1/request-log')).status).toBe(400);
    await world.flushRequestLog();
    expect(await world.db.requestLogLine.count({ where: { correlationId: 'rl-staff' } })).toBe(0);
  });

  it('then a reviewer, a director and a partner token are refused with 403', async () => {
    const reviewer = await newStaff(world, { scopes: ['ops:guarantees:review'] });
    const director = await newDirector(world, agencyA().companyId);
    for (const who of [reviewer, director, agencyA()]) {
      const refused = await opsClient(world, who).get(withQuery('/v1/request-log', { companyId: agencyA().companyId }));
      expect(refused.status).toBe(403);
    }
  });
});
