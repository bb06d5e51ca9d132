/**
 * The operations API moves guarantees: staff review, the signing process, termination and archiving,
 * each through the status machine, idempotent, with history under the staff member's name.
 */
import request from 'supertest';
import { expectErrorBody } from '../support/error-body';
import { createGuarantee, nextCpf, newKey } from '../support/factories';
import { partnerClient } from '../support/partner-client';
import { API, startTestApp, TOKEN_PATH, type Agency, type TestApp } from '../support/test-app';
import { approvalTerms, newStaff, OPS, opsClient, type Operator } from './ops-support';

let t: TestApp;
let agency: Agency;
let partner: ReturnType<typeof partnerClient>;
let staff: Operator;
let ops: ReturnType<typeof opsClient>;
beforeAll(async () => {
  t = await startTestApp();
  agency = await t.newAgency();
  partner = partnerClient(t, agency);
  staff = await newStaff(t, { name: 'Ana Revisora' });
  ops = opsClient(t, staff);
});
afterAll(() => t.close());

const ANA = { name: 'Ana Revisora', serviceAccount: false };
const guaranteePath = (id: number, action: string) => `/v1/rental-insurances/${id}/${action}`;

describe('When staff drive a guarantee from review to archive', () => {
  test('then every step goes through the status machine, bumps the version, and the partner sees it in history', async () => {
    const coTenantCpf = nextCpf();
    const created = await createGuarantee(t, agency, { coTenants: [{ cpfCnpj: coTenantCpf, name: 'João Pereira' }] });
    const id = created.id;

    const approveKey = newKey();
    const approved = await ops.post(guaranteePath(id, 'approve'), { ...approvalTerms, comment: 'Renda comprovada.' }, approveKey);
    expect(approved.status).toBe(200);
    expect(approved.headers['etag']).toBe('W/"2"');
    expect(approved.headers['service-effects']).toBe('none');
    expect(approved.headers['idempotent-replay']).toBe('false');
    expect(approved.body).toMatchObject({
      id,
      status: 'approved',
      installmentAmount: 456.04,
      coverageLimit: 136815.3,
      rentCoverageLimit: 105000,
      remainingCoverageAmount: 136815.3,
      rentRemainingCoverageAmount: 105000,
      startBillingDate: '2026-12-01',
      terminationDate: null,
    });
    const replay = await ops.post(guaranteePath(id, 'approve'), { ...approvalTerms, comment: 'Renda comprovada.' }, approveKey);
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replay']).toBe('true');
    expect(replay.headers['etag']).toBe('W/"2"');
    expect(replay.text).toBe(approved.text);

    expect((await partner.accept(id)).body.status).toBe('accepted');
    const ready = await ops.post(guaranteePath(id, 'envelope-ready'));
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('accepted');
    const signatures = await ops.get(guaranteePath(id, 'signatures'));
    expect(signatures.body.map((s: { status: string }) => s.status)).toEqual(['awaiting_signature', 'awaiting_signature', 'awaiting_signature']);
    expect(signatures.body.every((s: { url?: string }) => typeof s.url === 'string')).toBe(true);

    expect((await ops.post(guaranteePath(id, 'signatures'), { role: 'document', outcome: 'signed' })).body.status).toBe('accepted');
    const tenantCpf = created.tenant.cpfCnpj;
    const punctuated = `${tenantCpf.slice(0, 3)}.${tenantCpf.slice(3, 6)}.${tenantCpf.slice(6, 9)}-${tenantCpf.slice(9)}`;
    expect((await ops.post(guaranteePath(id, 'signatures'), { role: 'tenant', cpfCnpj: punctuated, outcome: 'signed' })).body.status).toBe('accepted');
    const active = await ops.post(guaranteePath(id, 'signatures'), { role: 'co_tenant', cpfCnpj: coTenantCpf, outcome: 'signed' });
    expect(active.status).toBe(200);
    expect(active.body.status).toBe('active');

    const terminated = await ops.post(guaranteePath(id, 'terminate'));
    expect(terminated.body.status).toBe('terminated');
    const archived = await ops.post(guaranteePath(id, 'archive'));
    expect(archived.body.status).toBe('archived');
    const version = Number(/\d+/.exec(archived.headers['etag'])![0]);

    const history = (await partner.history(id)).body as Array<{ creator: { name: string; serviceAccount: boolean }; status: { code: string }; comment: string }>;
    const staffEntries = history.filter((entry) => entry.creator.name === 'Ana Revisora');
    expect(staffEntries.every((entry) => entry.creator.serviceAccount === false)).toBe(true);
    expect(history.map((entry) => [entry.status.code, entry.creator.name])).toEqual([
      ['under_review', agency.displayName],
      ['approved', 'Ana Revisora'],
      ['accepted', agency.displayName],
      ['accepted', 'Ana Revisora'],
      ['accepted', 'Ana Revisora'],
      ['accepted', 'Ana Revisora'],
      ['accepted', 'Ana Revisora'],
      ['active', 'system'],
      ['terminated', 'Ana Revisora'],
      ['archived', 'Ana Revisora'],
    ]);
    expect(history[1]!.comment).toBe('Renda comprovada.');
    expect(version).toBe(history.length);
    expect((await ops.get(guaranteePath(id, 'history'))).body).toEqual(history);
  });

  test('then the guarantee of any agency can be read, with its agency in Company-Id', async () => {
    const other = await t.newAgency();
    const created = await createGuarantee(t, other);
    const response = await ops.get(`/v1/rental-insurances/${created.id}`);
    expect(response.status).toBe(200);
    expect(response.headers['etag']).toBe('W/"1"');
    expect(response.headers['company-id']).toBe(other.companyId);
    expect(response.body).toEqual((await partnerClient(t, other).get(created.id)).body);
  });
});

describe('When staff decline, request information or comment', () => {
  test('then a decline carries the comment, and a closed guarantee refuses further moves with 409', async () => {
    const { id } = await createGuarantee(t, agency);
    const declined = await ops.post(guaranteePath(id, 'decline'), { comment: 'Renda insuficiente.' });
    expect(declined.status).toBe(200);
    expect(declined.body.status).toBe('declined');
    const history = (await partner.history(id)).body;
    expect(history[1]).toMatchObject({ creator: ANA, comment: 'Renda insuficiente.', status: { code: 'declined' } });
    expectErrorBody(await ops.post(guaranteePath(id, 'approve'), approvalTerms), 409, 'invalid_state');
    expectErrorBody(await ops.post(guaranteePath(id, 'terminate')), 409, 'invalid_state');
  });

  test('then a decline without a body uses the default comment', async () => {
    const { id } = await createGuarantee(t, agency);
    const declined = await ops.post(guaranteePath(id, 'decline'));
    expect(declined.status).toBe(200);
    expect((await partner.history(id)).body[1].comment).toBe('Proposal declined.');
  });

  test('then a request for information needs a comment, which the partner reads, and a partner change returns it to review', async () => {
    const { id } = await createGuarantee(t, agency);
    expectErrorBody(await ops.post(guaranteePath(id, 'request-information'), {}), 400, 'validation_failed');
    const requested = await ops.post(guaranteePath(id, 'request-information'), { comment: 'Envie o comprovante de renda.' });
    expect(requested.body.status).toBe('information_requested');
    expect((await partner.history(id)).body[1]).toMatchObject({ creator: ANA, comment: 'Envie o comprovante de renda.' });
    const patched = await partner.patch(id, requested.headers['etag'], { rentalAmount: 3400 });
    expect(patched.body.status).toBe('under_review');
  });

  test('then a staff comment is a history entry that changes no version, allowed in a closed status', async () => {
    const { id } = await createGuarantee(t, agency);
    await ops.post(guaranteePath(id, 'decline'));
    const comment = await ops.post(guaranteePath(id, 'comments'), { comment: 'Cliente avisado por telefone.' });
    expect(comment.status).toBe(201);
    expect(comment.headers['service-effects']).toBe('none');
    expect(comment.body).toMatchObject({ creator: ANA, comment: 'Cliente avisado por telefone.', status: { code: 'declined' } });
    expect((await partner.get(id)).headers['etag']).toBe('W/"2"');
  });
});

describe('When a back-office request is wrong', () => {
  test('then invalid terms are 400 naming each field, and nothing changes', async () => {
    const { id } = await createGuarantee(t, agency);
    const response = await ops.post(guaranteePath(id, 'approve'), { ...approvalTerms, rentCoverageLimit: 200000, terminationDate: '2026-11-01' });
    expectErrorBody(response, 400, 'validation_failed');
    expect(response.body.details).toEqual(['rentCoverageLimit: must not exceed coverageLimit', 'terminationDate: must be after startBillingDate']);
    const unknownField = await ops.post(guaranteePath(id, 'approve'), { ...approvalTerms, discount: 1 });
    expectErrorBody(unknownField, 400, 'validation_failed');
    expectErrorBody(await ops.post(guaranteePath(id, 'approve'), { ...approvalTerms, installmentAmount: 0 }), 400, 'validation_failed');
    expect((await partner.get(id)).body.status).toBe('under_review');
  });

  test('then an unknown guarantee is 404, a missing Idempotency-Key 400, a stale If-Match 412', async () => {
    const { id } = await createGuarantee(t, agency);
    expectErrorBody(await ops.post(guaranteePath(999999999, 'decline')), 404, 'not_found');
    expectErrorBody(await ops.get('/v1/rental-insurances/999999999'), 404, 'not_found');
    const noKey = await request(t.app).post(`${OPS}${guaranteePath(id, 'decline')}`).set(staff.auth);
    expectErrorBody(noKey, 400, 'idempotency_key_required');
    const stale = await ops.post(guaranteePath(id, 'decline')).set('If-Match', 'W/"7"');
    expectErrorBody(stale, 412, 'precondition_failed');
    expect(stale.headers['etag']).toBe('W/"1"');
    const current = await ops.post(guaranteePath(id, 'decline')).set('If-Match', 'W/"1"');
    expect(current.status).toBe(200);
  });

  test('then a signature of an unknown signer is 404 and one not awaiting signature is 409', async () => {
    const { id, tenant } = await createGuarantee(t, agency);
    await ops.post(guaranteePath(id, 'approve'), approvalTerms);
    await partner.accept(id);
    expectErrorBody(await ops.post(guaranteePath(id, 'signatures'), { role: 'tenant', cpfCnpj: tenant.cpfCnpj, outcome: 'signed' }), 409, 'invalid_state');
    await ops.post(guaranteePath(id, 'envelope-ready'));
    expectErrorBody(await ops.post(guaranteePath(id, 'envelope-ready')), 409, 'invalid_state');
    expectErrorBody(await ops.post(guaranteePath(id, 'signatures'), { role: 'tenant', cpfCnpj: nextCpf(), outcome: 'signed' }), 404, 'not_found');
    expectErrorBody(await ops.post(guaranteePath(id, 'signatures'), { role: 'tenant', outcome: 'signed' }), 400, 'validation_failed');
    const refused = await ops.post(guaranteePath(id, 'signatures'), { role: 'tenant', cpfCnpj: tenant.cpfCnpj, outcome: 'refused' });
    expect(refused.status).toBe(200);
    const last = (await partner.history(id)).body.at(-1);
    expect(last).toMatchObject({ creator: ANA, comment: expect.stringContaining('refused to sign') });
  });
});

describe('When the caller is not staff with the right scope', () => {
  test('then a partner token gets 403 on the operations API and a staff token 403 on the partner API', async () => {
    const { id } = await createGuarantee(t, agency);
    const partnerOnOps = await opsClient(t, agency).post(guaranteePath(id, 'approve'), approvalTerms);
    expectErrorBody(partnerOnOps, 403, 'insufficient_scope');
    expect(partnerOnOps.headers['www-authenticate']).toBe('Bearer realm="rental-guarantee", error="insufficient_scope", scope="ops:guarantees:review"');
    expectErrorBody(await opsClient(t, agency).get(`/v1/rental-insurances/${id}`), 403, 'insufficient_scope');
    expectErrorBody(await request(t.app).get(`${API}/v1/rental-insurances/${id}`).set(staff.auth), 403, 'insufficient_scope');
    expectErrorBody(await request(t.app).get(`${API}/v1/rental-insurances`).set(staff.auth), 403, 'insufficient_scope');
    expect((await partner.get(id)).body.status).toBe('under_review');
  });

  test('then staff without the review scope get 403, and no token is 401', async () => {
    const { id } = await createGuarantee(t, agency);
    const bookkeeper = await newStaff(t, { name: 'Bia Contábil', scopes: ['ops:ledger:write'] });
    expectErrorBody(await opsClient(t, bookkeeper).post(guaranteePath(id, 'approve'), approvalTerms), 403, 'insufficient_scope');
    const anonymous = await request(t.app).post(`${OPS}${guaranteePath(id, 'approve')}`).set('Idempotency-Key', newKey()).send(approvalTerms);
    expectErrorBody(anonymous, 401, 'unauthorized');
    expect(anonymous.headers['www-authenticate']).toBe('Bearer realm="rental-guarantee"');
  });

  test('then partner credentials can never get operations scopes, nor staff credentials partner scopes', async () => {
    const asks = async (clientId: string, clientSecret: string, scope: string) =>
      request(t.app).post(TOKEN_PATH).auth(clientId, clientSecret).type('form').send({ grant_type: 'client_credentials', scope });
    const partnerAsks = await asks(agency.clientId, agency.clientSecret, 'ops:guarantees:review');
    expect({ status: partnerAsks.status, error: partnerAsks.body.error }).toEqual({ status: 400, error: 'invalid_scope' });
    const staffAsks = await asks(staff.clientId, staff.clientSecret, 'ri:rental-insurances:read');
    expect({ status: staffAsks.status, error: staffAsks.body.error }).toEqual({ status: 400, error: 'invalid_scope' });
    await expect(t.newAgency({ scopes: ['ri:rental-insurances:read', 'ops:guarantees:review'] })).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(newStaff(t, { scopes: ['ri:rental-insurances:write'] })).rejects.toMatchObject({ code: 'validation_failed' });
    // Even a hand-edited row cannot mix kinds: the database refuses it.
    await expect(t.db.credential.update({ where: { id: agency.credentialId }, data: { scopes: ['ri:rental-insurances:read', 'ops:ledger:write'] } })).rejects.toThrow();
  });
});

describe('When staff post statement entries', () => {
  const entry = (companyId: string, overrides: Record<string, unknown> = {}) => ({
    companyId,
    date: '2026-11-21',
    type: 'fee',
    amount: 317.5,
    description: 'Tarifa de emissão',
    ...overrides,
  });

  test('then the sign comes from the type, the partner sees the entry, and the posting is audited', async () => {
    const target = await t.newAgency();
    const fee = await ops.post('/v1/statement-entries', entry(target.companyId));
    expect(fee.status).toBe(201);
    expect(fee.headers['idempotent-replay']).toBe('false');
    expect(fee.body).toEqual({ id: expect.any(Number), companyId: target.companyId, date: '2026-11-21', description: 'Tarifa de emissão', amount: -317.5, type: 'fee' });
    const paid = await ops.post('/v1/statement-entries', entry(target.companyId, { type: 'charge_paid', amount: 1500.25, description: null }));
    expect(paid.body.amount).toBe(1500.25);
    const statement = await request(t.app)
      .get(`${API}/v1/financial/statement-entries?startDate=2026-11-01&endDate=2026-11-30`)
      .set(target.auth);
    expect(statement.body._embedded.statementEntries.map((row: { amount: number }) => row.amount).sort()).toEqual([-317.5, 1500.25]);
    const audit = await t.db.auditLogEntry.findMany({ where: { companyId: target.companyId, action: 'statement_entry.posted' }, orderBy: { id: 'asc' } });
    expect(audit.map((row) => row.actor)).toEqual(['staff:Ana Revisora', 'staff:Ana Revisora']);
    expect(audit[0]!.details).toMatchObject({ entryId: String(fee.body.id), amount: '-317.50', type: 'fee', via: 'operations-api', actorClientId: staff.clientId });
  });

  test('then the same entry posted twice with one key is created once', async () => {
    const target = await t.newAgency();
    const key = newKey();
    const first = await ops.post('/v1/statement-entries', entry(target.companyId), key);
    const again = await ops.post('/v1/statement-entries', entry(target.companyId), key);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replay']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(await t.db.statementEntry.count({ where: { companyId: target.companyId } })).toBe(1);
    expectErrorBody(await ops.post('/v1/statement-entries', entry(target.companyId, { amount: 10 }), key), 400, 'idempotency_key_reused');
  });

  test('then a non-positive amount, an unknown agency or a missing scope is refused', async () => {
    const target = await t.newAgency();
    expectErrorBody(await ops.post('/v1/statement-entries', entry(target.companyId, { amount: 0 })), 400, 'validation_failed');
    expectErrorBody(await ops.post('/v1/statement-entries', entry(target.companyId, { amount: -5 })), 400, 'validation_failed');
    expectErrorBody(await ops.post('/v1/statement-entries', entry(target.companyId, { amount: 1.001 })), 400, 'validation_failed');
    const unknown = await ops.post('/v1/statement-entries', entry('no-such-agency'));
    expectErrorBody(unknown, 400, 'validation_failed');
    expect(unknown.body.details).toEqual(['companyId: no agency "no-such-agency"']);
    expectErrorBody(await ops.post('/v1/statement-entries', entry('back-office')), 400, 'validation_failed');
    const reviewer = await newStaff(t, { scopes: ['ops:guarantees:review'] });
    expectErrorBody(await opsClient(t, reviewer).post('/v1/statement-entries', entry(target.companyId)), 403, 'insufficient_scope');
    expect(await t.db.statementEntry.count({ where: { companyId: target.companyId } })).toBe(0);
  });
});

describe('When staff expire an approved proposal by hand', () => {
  test('then it is expired with a history entry, and a proposal not approved cannot be expired', async () => {
    const { id } = await createGuarantee(t, agency);
    expectErrorBody(await ops.post(guaranteePath(id, 'expire')), 409, 'invalid_state');
    await ops.post(guaranteePath(id, 'approve'), approvalTerms);
    const expired = await ops.post(guaranteePath(id, 'expire'));
    expect(expired.status).toBe(200);
    expect(expired.body.status).toBe('expired');
    expect(expired.headers['etag']).toBe('W/"3"');
    expect(expired.headers['service-effects']).toBe('none');
    const history = (await partner.history(id)).body;
    expect(history[history.length - 1]).toMatchObject({ creator: ANA, previousStatus: { code: 'approved' }, status: { code: 'expired' } });
  });
});
