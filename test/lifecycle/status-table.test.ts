/** Walks each row of the status table through the partner API (plus the back office where it acts). */
import { expectErrorBody } from '../support/error-body';
import { backOffice } from '../support/back-office';
import { nextCpf } from '../support/factories';
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { PARTNER_EVENT_TYPES, transition, type GuaranteeEvent, type Status } from '../../src/guarantees/transitions/status-machine';

const world = useTestApp({}, { agencies: 1 });
const partner = asPartner(world);
const office = backOffice(world);

const etagOf = async (id: number) => (await partner.get(id)).headers['etag'] as string;
const statusOf = async (id: number) => (await partner.get(id)).body.status as string;

test('(new) -> under_review on create, reporting review_started, with a creation history entry', async () => {
  const created = await partner.newGuarantee();
  expect(created.status).toBe('under_review');
  const history = await partner.historyEntries(created.id);
  expect(history).toEqual([
    {
      creator: { name: world.agency.displayName, serviceAccount: true },
      comment: 'Rental insurance created; review started.',
      previousStatus: { code: null, description: null },
      status: { code: 'under_review', description: 'Under review' },
      documents: [],
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    },
  ]);
});

test('under_review -> approved, declined or information_requested by reviewers, each in history with the staff name', async () => {
  for (const [move, expected] of [
    ['approve', 'approved'],
    ['decline', 'declined'],
    ['requestInformation', 'information_requested'],
  ] as const) {
    const created = await partner.newGuarantee();
    await office[move](created.id);
    expect(await statusOf(created.id)).toBe(expected);
    const history = await partner.historyEntries(created.id);
    expect(history[1]).toMatchObject({ creator: { name: 'Ana Revisora', serviceAccount: false }, status: { code: expected } });
  }
});

test('information_requested -> under_review when the partner changes data; an externalId-only change keeps it', async () => {
  const created = await partner.newGuarantee();
  await office.requestInformation(created.id, 'Please send the tenant income.');
  const reference = await partner.patch(created.id, { externalId: 'NEW-REF' }, { ifMatch: 'W/"2"' });
  expect(reference.status).toBe(200);
  expect(reference.body.status).toBe('information_requested');
  expect(reference.headers['service-effects']).toBe('none');
  const change = await partner.patch(created.id, { tenant: { profession: 'Médica' } }, { ifMatch: 'W/"3"' });
  expect(change.body.status).toBe('under_review');
  expect(change.headers['service-effects']).toBe('review_started');
  const history = await partner.historyEntries(created.id);
  expect(history.map((entry) => entry.status.code)).toEqual(['under_review', 'information_requested', 'information_requested', 'under_review']);
  expect(history[1].comment).toBe('Please send the tenant income.');
});

test('approved -> expired when the proposal validity ends; then every partner write but comments is 409', async () => {
  const created = await partner.newGuarantee();
  await office.approve(created.id);
  await office.expire(created.id);
  expect(await statusOf(created.id)).toBe('expired');
  expectErrorBody(await partner.accept(created.id), 409, 'invalid_state');
  expectErrorBody(await partner.patch(created.id, { externalId: 'x' }, { ifMatch: await etagOf(created.id) }), 409, 'invalid_state');
  expect((await partner.comment(created.id, 'Too late.')).status).toBe(201);
});

test('approved -> under_review on a monetary change (review_started); a contractual change keeps approved', async () => {
  const created = await partner.newGuarantee();
  await office.approve(created.id);
  const contractual = await partner.patch(created.id, { property: { address: { complement: 'Fundos' } } }, { ifMatch: 'W/"2"' });
  expect(contractual.body.status).toBe('approved');
  expect(contractual.headers['service-effects']).toBe('none');
  const monetary = await partner.patch(created.id, { rentalAmount: 3600.5 }, { ifMatch: 'W/"3"' });
  expect(monetary.body.status).toBe('under_review');
  expect(monetary.body.rentalAmount).toBe(3600.5);
  expect(monetary.headers['service-effects']).toBe('review_started');
});

test('accepted -> under_review on a monetary change: contract invalidated, signatures discarded', async () => {
  const created = await partner.newGuarantee();
  await office.approve(created.id);
  await partner.accept(created.id);
  const response = await partner.patch(created.id, { condoFee: 900 }, { ifMatch: await etagOf(created.id) });
  expect(response.body.status).toBe('under_review');
  expect(response.headers['service-effects']).toBe('review_started, contract_invalidated');
  expect(await partner.signatureRecords(created.id)).toEqual([]);
});

test('accepted stays accepted on a contractual change: contract_reissued and signatures back to pending', async () => {
  const created = await partner.newGuarantee();
  await office.approve(created.id);
  await partner.accept(created.id);
  await office.envelopeReady(created.id);
  await office.sign(created.id, 'tenant', created.tenant.cpfCnpj);
  const response = await partner.patch(created.id, { tenant: { name: 'Maria José Souza' } }, { ifMatch: await etagOf(created.id) });
  expect(response.body.status).toBe('accepted');
  expect(response.headers['service-effects']).toBe('contract_reissued');
  const signatures = await partner.signatureRecords(created.id);
  expect(signatures.map((record: { status: string; url?: string }) => [record.status, record.url])).toEqual([
    ['pending', undefined],
    ['pending', undefined],
  ]);
  expect(signatures[1].name).toBe('Maria José Souza');
});

test('accepted -> active -> terminated -> archived, each by the back office, each in history', async () => {
  const created = await partner.newGuarantee();
  await office.approve(created.id);
  await partner.accept(created.id);
  await office.envelopeReady(created.id);
  await office.sign(created.id, 'document');
  await office.sign(created.id, 'tenant', created.tenant.cpfCnpj);
  expect(await statusOf(created.id)).toBe('active');
  const activeChange = await partner.patch(created.id, { otherFees: 12.5 }, { ifMatch: await etagOf(created.id) });
  expect(activeChange.body.status).toBe('active');
  expect(activeChange.headers['service-effects']).toBe('none');
  await office.terminate(created.id);
  expect(await statusOf(created.id)).toBe('terminated');
  await office.archive(created.id);
  expect(await statusOf(created.id)).toBe('archived');
  const codes = (await partner.historyEntries(created.id)).map((entry) => entry.status.code);
  expect(codes.slice(-3)).toEqual(['active', 'terminated', 'archived']);
  expectErrorBody(await partner.removeCoTenant(created.id, nextCpf(), { ifMatch: await etagOf(created.id) }), 409, 'invalid_state');
});

describe('A partner can never review', () => {
  const allStatuses: Status[] = [
    'under_review',
    'information_requested',
    'approved',
    'declined',
    'expired',
    'accepted',
    'declined_by_tenant',
    'active',
    'terminated',
    'archived',
  ];
  const partnerEvents: GuaranteeEvent[] = [
    { type: 'partner_accepted' },
    { type: 'partner_refused' },
    ...[false, true].flatMap((monetary) => [false, true].map((contractual) => ({ type: 'partner_changed_data' as const, monetary, contractual }))),
  ];

  test('the status machine: no partner event yields approved, declined or information_requested, or leaves a closed status', () => {
    expect(new Set(partnerEvents.map((event) => event.type))).toEqual(new Set(PARTNER_EVENT_TYPES));
    for (const from of allStatuses) {
      for (const event of partnerEvents) {
        let to: Status | 'refused';
        try {
          to = transition(from, event).to;
        } catch {
          to = 'refused';
        }
        expect(['approved', 'declined', 'information_requested']).not.toContain(to === from ? 'unchanged' : to);
        if (['declined', 'expired', 'declined_by_tenant', 'terminated', 'archived'].includes(from)) expect(to).toBe('refused');
      }
    }
  });

  test.each(allStatuses)('through the API: every partner write on a %s guarantee ends in an allowed status', async (status) => {
    const created = await partner.newGuarantee({ coTenants: [{ cpfCnpj: nextCpf(), name: 'Ana' }] });
    await world.db.rentalInsurance.update({ where: { id: BigInt(created.id) }, data: { status } });
    const coTenant = (await partner.get(created.id)).body.coTenants[0].cpfCnpj as string;
    const writes = [
      () => partner.accept(created.id),
      () => partner.refuse(created.id),
      async () => partner.patch(created.id, { rentalAmount: 4000 }, { ifMatch: await etagOf(created.id) }),
      async () => partner.patch(created.id, { tenant: { name: 'Outro Nome' } }, { ifMatch: await etagOf(created.id) }),
      async () => partner.addCoTenant(created.id, { cpfCnpj: nextCpf(), name: 'B' }, { ifMatch: await etagOf(created.id) }),
      async () => partner.patchCoTenant(created.id, coTenant, { name: 'C' }, { ifMatch: await etagOf(created.id) }),
      () => partner.comment(created.id, 'note'),
    ];
    for (const write of writes) {
      await world.db.rentalInsurance.update({ where: { id: BigInt(created.id) }, data: { status } });
      const response = await write();
      expect([200, 201, 409]).toContain(response.status);
      const after = await statusOf(created.id);
      if (after !== status) expect(['under_review', 'accepted', 'declined_by_tenant']).toContain(after);
      if (after === 'under_review') expect(['information_requested', 'approved', 'accepted', 'under_review']).toContain(status);
    }
  });
});
