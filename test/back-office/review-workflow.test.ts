/**
 * The back-office API moves guarantees: staff review, the signing process, termination, archiving
 * and expiry, each through the status machine, idempotent, with history under the staff member's name.
 */
import { expectErrorBody } from '../support/error-body';
import { nextCpf, newKey } from '../support/factories';
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { approvalTerms, guaranteePath, useStaff } from './ops-support';

const world = useTestApp({}, { agencies: 1 });
const partner = asPartner(world);
const { ops } = useStaff(world, { name: 'Ana Revisora' });

const ANA = { name: 'Ana Revisora', serviceAccount: false };

describe('When staff drive a guarantee from review to archive', () => {
  test('then every step goes through the status machine, bumps the version, and the partner sees it in history', async () => {
    const coTenantCpf = nextCpf();
    const created = await partner.newGuarantee({ coTenants: [{ cpfCnpj: coTenantCpf, name: 'João Pereira' }] });
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
    const records = signatures.body._embedded.signatures as Array<{ status: string; url?: string }>;
    expect(records.map((s) => s.status)).toEqual(['awaiting_signature', 'awaiting_signature', 'awaiting_signature']);
    expect(records.every((s) => typeof s.url === 'string')).toBe(true);

    expect((await ops.post(guaranteePath(id, 'signatures'), { role: 'document', outcome: 'signed' })).body.status).toBe('accepted');
    const tenantCpf = created.tenant.cpfCnpj!;
    const punctuated = `${tenantCpf.slice(0, 3)}.${tenantCpf.slice(3, 6)}.${tenantCpf.slice(6, 9)}-${tenantCpf.slice(9)}`;
    expect((await ops.post(guaranteePath(id, 'signatures'), { role: 'tenant', cpfCnpj: punctuated, outcome: 'signed' })).body.status).toBe(
      'accepted',
    );
    const active = await ops.post(guaranteePath(id, 'signatures'), { role: 'co_tenant', cpfCnpj: coTenantCpf, outcome: 'signed' });
    expect(active.status).toBe(200);
    expect(active.body.status).toBe('active');

    const terminated = await ops.post(guaranteePath(id, 'terminate'));
    expect(terminated.body.status).toBe('terminated');
    const archived = await ops.post(guaranteePath(id, 'archive'));
    expect(archived.body.status).toBe('archived');
    const version = Number(/\d+/.exec(archived.headers['etag'])![0]);

    const history = (await partner.historyEntries(id)) as Array<{
      creator: { name: string; serviceAccount: boolean };
      status: { code: string };
      comment: string;
    }>;
    const staffEntries = history.filter((entry) => entry.creator.name === 'Ana Revisora');
    expect(staffEntries.every((entry) => entry.creator.serviceAccount === false)).toBe(true);
    expect(history.map((entry) => [entry.status.code, entry.creator.name])).toEqual([
      ['under_review', world.agency.displayName],
      ['approved', 'Ana Revisora'],
      ['accepted', world.agency.displayName],
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
    expect((await ops.get(`${guaranteePath(id, 'history')}?pageSize=200`)).body._embedded.historyEntries).toEqual(history);
  });

  test('then the guarantee of any agency can be read, with its agency in Company-Id', async () => {
    const other = await world.newAgency();
    const created = await asPartner(world, other).newGuarantee();
    const response = await ops.get(`/v1/rental-insurances/${created.id}`);
    expect(response.status).toBe(200);
    expect(response.headers['etag']).toBe('W/"1"');
    expect(response.headers['company-id']).toBe(other.companyId);
    expect(response.body).toEqual((await asPartner(world, other).get(created.id)).body);
  });
});

describe('When staff decline, request information or comment', () => {
  test('then a decline carries the comment, and a closed guarantee refuses further moves with 409', async () => {
    const { id } = await partner.newGuarantee();
    const declined = await ops.post(guaranteePath(id, 'decline'), { comment: 'Renda insuficiente.' });
    expect(declined.status).toBe(200);
    expect(declined.body.status).toBe('declined');
    const history = await partner.historyEntries(id);
    expect(history[1]).toMatchObject({ creator: ANA, comment: 'Renda insuficiente.', status: { code: 'declined' } });
    expectErrorBody(await ops.post(guaranteePath(id, 'approve'), approvalTerms), 409, 'invalid_state');
    expectErrorBody(await ops.post(guaranteePath(id, 'terminate')), 409, 'invalid_state');
  });

  test('then a decline without a body uses the default comment', async () => {
    const { id } = await partner.newGuarantee();
    const declined = await ops.post(guaranteePath(id, 'decline'));
    expect(declined.status).toBe(200);
    expect((await partner.historyEntries(id))[1].comment).toBe('Proposal declined.');
  });

  test('then a request for information needs a comment, which the partner reads, and a partner change returns it to review', async () => {
    const { id } = await partner.newGuarantee();
    expectErrorBody(await ops.post(guaranteePath(id, 'request-information'), {}), 400, 'validation_failed');
    const requested = await ops.post(guaranteePath(id, 'request-information'), { comment: 'Envie o comprovante de renda.' });
    expect(requested.body.status).toBe('information_requested');
    expect((await partner.historyEntries(id))[1]).toMatchObject({ creator: ANA, comment: 'Envie o comprovante de renda.' });
    const patched = await partner.patch(id, { rentalAmount: 3400 }, { ifMatch: requested.headers['etag'] });
    expect(patched.body.status).toBe('under_review');
  });

  test('then a staff comment is a history entry that changes no version, allowed in a closed status', async () => {
    const { id } = await partner.newGuarantee();
    await ops.post(guaranteePath(id, 'decline'));
    const comment = await ops.post(guaranteePath(id, 'comments'), { comment: 'Cliente avisado por telefone.' });
    expect(comment.status).toBe(201);
    expect(comment.headers['service-effects']).toBe('none');
    expect(comment.body).toMatchObject({ creator: ANA, comment: 'Cliente avisado por telefone.', status: { code: 'declined' } });
    expect((await partner.get(id)).headers['etag']).toBe('W/"2"');
  });
});

describe('When staff expire an approved proposal by hand', () => {
  test('then it is expired with a history entry, and a proposal not approved cannot be expired', async () => {
    const { id } = await partner.newGuarantee();
    expectErrorBody(await ops.post(guaranteePath(id, 'expire')), 409, 'invalid_state');
    await ops.post(guaranteePath(id, 'approve'), approvalTerms);
    const expired = await ops.post(guaranteePath(id, 'expire'));
    expect(expired.status).toBe(200);
    expect(expired.body.status).toBe('expired');
    expect(expired.headers['etag']).toBe('W/"3"');
    expect(expired.headers['service-effects']).toBe('none');
    const history = await partner.historyEntries(id);
    expect(history[history.length - 1]).toMatchObject({ creator: ANA, previousStatus: { code: 'approved' }, status: { code: 'expired' } });
  });
});
