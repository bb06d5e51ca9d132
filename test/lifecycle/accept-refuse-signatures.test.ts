/** Accept and refuse an approved proposal; the signature records that accepting creates. */
import { expectErrorBody } from '../support/error-body';
import { backOffice } from '../support/back-office';
import { nextCpf } from '../support/factories';
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { webhookClient } from '../webhooks/webhook-support';

const world = useTestApp({}, { agencies: 1 });
const partner = asPartner(world);
const office = backOffice(world);
const feed = webhookClient(world, () => world.agency);

async function approvedGuarantee(overrides: Record<string, unknown> = {}) {
  const created = await partner.newGuarantee(overrides);
  await office.approve(created.id);
  return created;
}

describe('When the partner accepts an approved proposal', () => {
  test('then the guarantee is accepted, signatures are requested and pending records exist without url', async () => {
    const coTenantCpf = nextCpf();
    const created = await approvedGuarantee({ coTenants: [{ cpfCnpj: coTenantCpf, name: 'João Souza' }] });
    const response = await partner.accept(created.id);
    expect(response.status).toBe(200);
    expect(response.headers['etag']).toBe('W/"3"');
    expect(response.headers['service-effects']).toBe('signature_requested');
    expect(response.headers['idempotent-replay']).toBe('false');
    expect(response.body.status).toBe('accepted');
    expect(response.body.installmentAmount).toBe(456.04);
    expect(response.body.coverageLimit).toBe(136815.3);

    const signatures = await partner.signatures(created.id);
    expect(signatures.status).toBe(200);
    expect(signatures.body._embedded.signatures).toEqual([
      // The document record names the contract the accept rendered (a document of the guarantee).
      { role: 'document', documentId: expect.any(Number), cpfCnpj: null, name: null, status: 'pending' },
      { role: 'tenant', documentId: null, cpfCnpj: created.tenant.cpfCnpj, name: 'Maria José da Silva', status: 'pending' },
      { role: 'co_tenant', documentId: null, cpfCnpj: coTenantCpf, name: 'João Souza', status: 'pending' },
    ]);
    expect(signatures.body.page).toEqual({ size: 20, totalElements: 3, totalPages: 1, number: 0 });
    // The event carries the records the acceptance wrote, in the order the API lists them.
    const events = await feed.events({ type: 'rental_insurance.signature_changed', limit: 200 });
    const ours = events.body._embedded.events.filter(
      (event: { data: { rentalInsurance: { id: number } } }) => event.data.rentalInsurance.id === created.id,
    );
    expect(ours).toHaveLength(1);
    expect(ours[0].data.signatures).toEqual(signatures.body._embedded.signatures);

    const history = await partner.historyEntries(created.id);
    const last = history[history.length - 1];
    expect(last).toMatchObject({
      creator: { name: world.agency.displayName, serviceAccount: true },
      previousStatus: { code: 'approved', description: 'Approved' },
      status: { code: 'accepted', description: 'Accepted' },
    });
  });

  test('then the envelope and the signers move the records and the guarantee becomes active', async () => {
    const created = await approvedGuarantee();
    await partner.accept(created.id);
    await office.envelopeReady(created.id);
    const awaiting = await partner.signatureRecords(created.id);
    expect(awaiting.map((record: { status: string; url?: string }) => [record.status, typeof record.url])).toEqual([
      ['awaiting_signature', 'string'],
      ['awaiting_signature', 'string'],
    ]);
    await office.sign(created.id, 'tenant', created.tenant.cpfCnpj);
    expect((await partner.get(created.id)).body.status).toBe('accepted');
    await office.sign(created.id, 'document');
    const active = await partner.get(created.id);
    expect(active.body.status).toBe('active');
    const statuses = (await partner.signatureRecords(created.id)).map((record: { status: string }) => record.status);
    expect(statuses).toEqual(['signed', 'signed']);
    const history = await partner.historyEntries(created.id);
    expect(history[history.length - 1]).toMatchObject({
      creator: { name: 'system', serviceAccount: true },
      previousStatus: { code: 'accepted' },
      status: { code: 'active' },
    });
  });

  test('then a signer refusal is recorded in history and the guarantee stays accepted', async () => {
    const created = await approvedGuarantee();
    await partner.accept(created.id);
    await office.envelopeReady(created.id);
    await office.sign(created.id, 'tenant', created.tenant.cpfCnpj, 'refused');
    expect((await partner.get(created.id)).body.status).toBe('accepted');
    const history = await partner.historyEntries(created.id);
    expect(history.at(-1)!.comment).toMatch(/refused to sign/);
    const records = await partner.signatureRecords(created.id);
    expect(records.find((record) => record.role === 'tenant')!.status).toBe('refused');
  });

  test('then replaying the accept returns the stored answer and changes nothing', async () => {
    const created = await approvedGuarantee();
    const first = await partner.accept(created.id, { key: 'accept-once' });
    const replay = await partner.accept(created.id, { key: 'accept-once' });
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replay']).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(replay.headers['etag']).toBe(first.headers['etag']);
    expect(await world.db.signature.count({ where: { rentalInsuranceId: BigInt(created.id) } })).toBe(2);
  });
});

describe('When the partner refuses an approved proposal', () => {
  test('then the guarantee is declined by the tenant and closed for writes other than comments', async () => {
    const created = await approvedGuarantee();
    const response = await partner.refuse(created.id);
    expect(response.status).toBe(200);
    expect(response.body.status).toBe('declined_by_tenant');
    expect(response.headers['service-effects']).toBe('none');
    expect(response.headers['etag']).toBe('W/"3"');
    expectErrorBody(await partner.accept(created.id), 409, 'invalid_state');
    expectErrorBody(await partner.patch(created.id, { rentalAmount: 10 }, { ifMatch: 'W/"3"' }), 409, 'invalid_state');
    expect((await partner.comment(created.id, 'Tenant found another flat.')).status).toBe(201);
  });
});

describe('When accept or refuse is sent outside approved', () => {
  test.each(['accept', 'refuse'] as const)('then %s on an under_review guarantee is 409 invalid_state and changes nothing', async (action) => {
    const created = await partner.newGuarantee();
    const response = await partner[action](created.id);
    expectErrorBody(response, 409, 'invalid_state');
    const after = await partner.get(created.id);
    expect(after.body.status).toBe('under_review');
    expect(after.headers['etag']).toBe('W/"1"');
  });

  test('then another company gets 404 for accept, refuse, history and signatures', async () => {
    const created = await approvedGuarantee();
    const other = asPartner(world, await world.newAgency());
    expectErrorBody(await other.accept(created.id), 404, 'not_found');
    expectErrorBody(await other.refuse(created.id), 404, 'not_found');
    expectErrorBody(await other.history(created.id), 404, 'not_found');
    expectErrorBody(await other.signatures(created.id), 404, 'not_found');
    expectErrorBody(await other.comment(created.id, 'hello'), 404, 'not_found');
    expect((await partner.get(created.id)).body.status).toBe('approved');
  });
});
