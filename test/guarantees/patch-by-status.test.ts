/** PATCH /v1/rental-insurances/{id}: versions and Service-Effects in each status, closed statuses, unknown ids. */
import type { Status } from '../../src/guarantees/transitions/status-machine';
import { expectErrorBody } from '../support/error-body';
import { asPartner } from '../support/partner-api';
import { setStatus } from '../support/stored-state';
import { useTestApp } from '../support/test-app';

const world = useTestApp({}, { agencies: 1 });
const partner = asPartner(world);

async function patched(id: number, patch: unknown, ifMatch = 'W/"1"') {
  const response = await partner.patch(id, patch, { ifMatch });
  if (response.status !== 200) throw new Error(`patch failed: ${response.status} ${response.text}`);
  return response;
}

describe('When a patch reaches a guarantee in each status', () => {
  async function inStatus(status: Status) {
    const guarantee = await partner.newGuarantee();
    await setStatus(world, guarantee.id, status);
    return guarantee;
  }

  test('then a monetary change on approved starts a new review: under_review, review_started, version + 1', async () => {
    const guarantee = await inStatus('approved');
    const response = await patched(guarantee.id, { rentalAmount: 3700 });
    expect(response.body.status).toBe('under_review');
    expect(response.headers['service-effects']).toBe('review_started');
    expect(response.headers['etag']).toBe('W/"2"');
    expect((await world.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(guarantee.id) } })).status).toBe('under_review');
  });

  test.each([
    ['condoFee', 900],
    ['propertyTax', null],
    ['otherFees', 10],
    ['setupFee', 0],
  ])('then a change of %s on approved is monetary too (review_started)', async (field, value) => {
    const guarantee = await inStatus('approved');
    const response = await patched(guarantee.id, { [field]: value });
    expect(response.body.status).toBe('under_review');
    expect(response.headers['service-effects']).toBe('review_started');
  });

  test('then an externalId-only change on approved keeps the status and reports none', async () => {
    const guarantee = await inStatus('approved');
    const response = await patched(guarantee.id, { externalId: 'CTR-NEW-REF' });
    expect(response.body.status).toBe('approved');
    expect(response.body.externalId).toBe('CTR-NEW-REF');
    expect(response.headers['service-effects']).toBe('none');
    expect(response.headers['etag']).toBe('W/"2"');
  });

  test('then a non-monetary data change on approved keeps the status and reports none', async () => {
    const guarantee = await inStatus('approved');
    const response = await patched(guarantee.id, { tenant: { email: 'new@example.com' } });
    expect(response.body.status).toBe('approved');
    expect(response.headers['service-effects']).toBe('none');
  });

  test('then a monetary change under review keeps under_review and reports none', async () => {
    const guarantee = await partner.newGuarantee();
    const response = await patched(guarantee.id, { rentalAmount: 4000 });
    expect(response.body.status).toBe('under_review');
    expect(response.headers['service-effects']).toBe('none');
    expect(response.headers['etag']).toBe('W/"2"');
  });

  test('then a monetary change on active keeps active and reports none', async () => {
    const guarantee = await inStatus('active');
    const response = await patched(guarantee.id, { rentalAmount: 3900 });
    expect(response.body.status).toBe('active');
    expect(response.body.rentalAmount).toBe(3900);
    expect(response.headers['service-effects']).toBe('none');
    expect(response.headers['etag']).toBe('W/"2"');
  });

  test('then a data change on information_requested returns it to review (review_started)', async () => {
    const guarantee = await inStatus('information_requested');
    const response = await patched(guarantee.id, { tenant: { profession: 'Médica' } });
    expect(response.body.status).toBe('under_review');
    expect(response.headers['service-effects']).toBe('review_started');
  });

  test('then an externalId-only change on information_requested keeps the status (none)', async () => {
    const guarantee = await inStatus('information_requested');
    const response = await patched(guarantee.id, { externalId: 'REF-2' });
    expect(response.body.status).toBe('information_requested');
    expect(response.headers['service-effects']).toBe('none');
  });

  test('then a monetary change on accepted reports review_started and contract_invalidated', async () => {
    const guarantee = await inStatus('accepted');
    const response = await patched(guarantee.id, { condoFee: 999 });
    expect(response.body.status).toBe('under_review');
    expect(new Set(response.headers['service-effects']!.split(/,\s*/))).toEqual(new Set(['review_started', 'contract_invalidated']));
  });

  test('then a contractual change on accepted keeps accepted and reports contract_reissued', async () => {
    const guarantee = await inStatus('accepted');
    const response = await patched(guarantee.id, { property: { address: { complement: 'Apto 84' } } });
    expect(response.body.status).toBe('accepted');
    expect(response.headers['service-effects']).toBe('contract_reissued');
  });

  test('then an externalId-only change on accepted reports none', async () => {
    const guarantee = await inStatus('accepted');
    const response = await patched(guarantee.id, { externalId: 'REF-3' });
    expect(response.body.status).toBe('accepted');
    expect(response.headers['service-effects']).toBe('none');
  });

  test.each<[Status]>([['declined'], ['expired'], ['declined_by_tenant'], ['terminated'], ['archived']])(
    'then any patch on the closed status %s is 409 invalid_state and nothing changes',
    async (status) => {
      const guarantee = await inStatus(status);
      const response = await partner.patch(guarantee.id, { externalId: 'TOO-LATE', rentalAmount: 1 });
      expectErrorBody(response, 409, 'invalid_state');
      const row = await world.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(guarantee.id) } });
      expect({ status: row.status, version: row.version, externalId: row.externalId }).toEqual({
        status,
        version: 1,
        externalId: guarantee.externalId,
      });
    },
  );

  test('then even an empty patch on a closed status is 409 invalid_state', async () => {
    const guarantee = await inStatus('declined');
    const response = await partner.patch(guarantee.id, {});
    expectErrorBody(response, 409, 'invalid_state');
  });
});

describe('When a partner patches a guarantee that is not there', () => {
  test('then an unknown id is 404 not_found', async () => {
    const response = await partner.patch(987654321, { externalId: 'X' });
    expectErrorBody(response, 404, 'not_found');
  });

  test('then an id that is not a positive integer is 404 not_found', async () => {
    const response = await partner.patch('abc', { externalId: 'X' });
    expectErrorBody(response, 404, 'not_found');
  });
});
