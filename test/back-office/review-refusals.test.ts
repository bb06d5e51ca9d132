/** What the back-office API refuses: wrong terms, keys and versions, and callers that are not staff with the right scope. */
import { expectErrorBody } from '../support/error-body';
import { nextCpf } from '../support/factories';
import { ANONYMOUS, asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { approvalTerms, guaranteePath, newStaff, opsClient, useStaff } from './ops-support';

const world = useTestApp({}, { agencies: 1 });
const partner = asPartner(world);
const { ops, operator: staff } = useStaff(world, { name: 'Ana Revisora' });

const ANA = { name: 'Ana Revisora', serviceAccount: false };

describe('When a back-office request is wrong', () => {
  test('then invalid terms are 400 naming each field, and nothing changes', async () => {
    const { id } = await partner.newGuarantee();
    const response = await ops.post(guaranteePath(id, 'approve'), { ...approvalTerms, rentCoverageLimit: 200000, terminationDate: '2026-11-01' });
    expectErrorBody(response, 400, 'validation_failed');
    expect(response.body.details).toEqual(['rentCoverageLimit: must not exceed coverageLimit', 'terminationDate: must be after startBillingDate']);
    const unknownField = await ops.post(guaranteePath(id, 'approve'), { ...approvalTerms, discount: 1 });
    expectErrorBody(unknownField, 400, 'validation_failed');
    expectErrorBody(await ops.post(guaranteePath(id, 'approve'), { ...approvalTerms, installmentAmount: 0 }), 400, 'validation_failed');
    expect((await partner.get(id)).body.status).toBe('under_review');
  });

  test('then an unknown guarantee is 404, a missing Idempotency-Key 400, a stale If-Match 412', async () => {
    const { id } = await partner.newGuarantee();
    expectErrorBody(await ops.post(guaranteePath(999999999, 'decline')), 404, 'not_found');
    expectErrorBody(await ops.get('/v1/rental-insurances/999999999'), 404, 'not_found');
    const noKey = await ops.post(guaranteePath(id, 'decline'), undefined, null);
    expectErrorBody(noKey, 400, 'idempotency_key_required');
    const stale = await ops.post(guaranteePath(id, 'decline')).set('If-Match', 'W/"7"');
    expectErrorBody(stale, 412, 'precondition_failed');
    expect(stale.headers['etag']).toBe('W/"1"');
    const current = await ops.post(guaranteePath(id, 'decline')).set('If-Match', 'W/"1"');
    expect(current.status).toBe(200);
  });

  test('then a signature of an unknown signer is 404 and one not awaiting signature is 409', async () => {
    const { id, tenant } = await partner.newGuarantee();
    await ops.post(guaranteePath(id, 'approve'), approvalTerms);
    await partner.accept(id);
    expectErrorBody(
      await ops.post(guaranteePath(id, 'signatures'), { role: 'tenant', cpfCnpj: tenant.cpfCnpj, outcome: 'signed' }),
      409,
      'invalid_state',
    );
    await ops.post(guaranteePath(id, 'envelope-ready'));
    expectErrorBody(await ops.post(guaranteePath(id, 'envelope-ready')), 409, 'invalid_state');
    expectErrorBody(await ops.post(guaranteePath(id, 'signatures'), { role: 'tenant', cpfCnpj: nextCpf(), outcome: 'signed' }), 404, 'not_found');
    expectErrorBody(await ops.post(guaranteePath(id, 'signatures'), { role: 'tenant', outcome: 'signed' }), 400, 'validation_failed');
    const refused = await ops.post(guaranteePath(id, 'signatures'), { role: 'tenant', cpfCnpj: tenant.cpfCnpj, outcome: 'refused' });
    expect(refused.status).toBe(200);
    const last = (await partner.historyEntries(id)).at(-1);
    expect(last).toMatchObject({ creator: ANA, comment: expect.stringContaining('refused to sign') });
  });
});

describe('When the caller is not staff with the right scope', () => {
  test('then a partner token gets 403 on the back-office API and a staff token 403 on the partner API', async () => {
    const { id } = await partner.newGuarantee();
    const partnerOnOps = await opsClient(world, world.agency).post(guaranteePath(id, 'approve'), approvalTerms);
    expectErrorBody(partnerOnOps, 403, 'insufficient_scope');
    expect(partnerOnOps.headers['www-authenticate']).toBe(
      'Bearer realm="rental-guarantee", error="insufficient_scope", scope="ops:guarantees:review"',
    );
    expectErrorBody(await opsClient(world, world.agency).get(`/v1/rental-insurances/${id}`), 403, 'insufficient_scope');
    expectErrorBody(await asPartner(world, staff).get(id), 403, 'insufficient_scope');
    expectErrorBody(await asPartner(world, staff).list(), 403, 'insufficient_scope');
    expect((await partner.get(id)).body.status).toBe('under_review');
  });

  test('then staff without the review scope get 403, and no token is 401', async () => {
    const { id } = await partner.newGuarantee();
    const bookkeeper = await newStaff(world, { name: 'Bia Contábil', scopes: ['ops:ledger:write'] });
    expectErrorBody(await opsClient(world, bookkeeper).post(guaranteePath(id, 'approve'), approvalTerms), 403, 'insufficient_scope');
    const anonymous = await opsClient(world, ANONYMOUS).post(guaranteePath(id, 'approve'), approvalTerms);
    expectErrorBody(anonymous, 401, 'unauthorized');
    expect(anonymous.headers['www-authenticate']).toBe('Bearer realm="rental-guarantee"');
  });

  test('then partner credentials can never get operations scopes, nor staff credentials partner scopes', async () => {
    const asks = async (clientId: string, clientSecret: string, scope: string) =>
      asPartner(world, ANONYMOUS).tokenRequest().auth(clientId, clientSecret).send({ grant_type: 'client_credentials', scope });
    const partnerAsks = await asks(world.agency.clientId, world.agency.clientSecret, 'ops:guarantees:review');
    expect({ status: partnerAsks.status, error: partnerAsks.body.error }).toEqual({ status: 400, error: 'invalid_scope' });
    const staffAsks = await asks(staff().clientId, staff().clientSecret, 'ri:rental-insurances:read');
    expect({ status: staffAsks.status, error: staffAsks.body.error }).toEqual({ status: 400, error: 'invalid_scope' });
    await expect(world.newAgency({ scopes: ['ri:rental-insurances:read', 'ops:guarantees:review'] })).rejects.toMatchObject({
      code: 'validation_failed',
    });
    await expect(newStaff(world, { scopes: ['ri:rental-insurances:write'] })).rejects.toMatchObject({ code: 'validation_failed' });
    // Even a hand-edited row cannot mix kinds: the database refuses it.
    await expect(
      world.db.credential.update({ where: { id: world.agency.credentialId }, data: { scopes: ['ri:rental-insurances:read', 'ops:ledger:write'] } }),
    ).rejects.toThrow();
  });
});
