/** History lists every event in order; comments are idempotent, allowed in every status and never change the version. */
import { expectErrorBody } from '../support/error-body';
import { backOffice } from '../support/back-office';
import { asPartner, withAuthorization } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { webhookClient } from '../webhooks/webhook-support';

const world = useTestApp({}, { agencies: 1 });
const partner = asPartner(world);

describe('When the partner comments', () => {
  test('then 201 returns the history entry, and the version, status and data stay the same', async () => {
    const created = await partner.newGuarantee();
    const response = await partner.comment(created.id, 'Tenant will send documents tomorrow.');
    expect(response.status).toBe(201);
    expect(response.headers['idempotent-replay']).toBe('false');
    expect(response.headers['service-effects']).toBe('none');
    expect(response.headers['etag']).toBeUndefined();
    expect(response.body).toEqual({
      creator: { name: world.agency.displayName, serviceAccount: true },
      comment: 'Tenant will send documents tomorrow.',
      previousStatus: { code: 'under_review', description: 'Under review' },
      status: { code: 'under_review', description: 'Under review' },
      documents: [],
      createdAt: expect.any(String),
    });
    const after = await partner.get(created.id);
    expect(after.headers['etag']).toBe('W/"1"');
    expect(after.body.updatedAt).toBe(created.updatedAt);
    // The answer shows the entry exactly as stored (its time too), and its event carries the same.
    expect((await partner.historyEntries(created.id)).at(-1)).toEqual(response.body);
    const events = await webhookClient(world, world.agency).events({ type: 'rental_insurance.comment_added', limit: 200 });
    const event = events.body._embedded.events.find(
      (candidate: { data: Record<string, unknown> }) => candidate.data['rentalInsuranceId'] === created.id,
    );
    expect(event?.data).toEqual({ rentalInsuranceId: created.id, historyEntry: response.body });
  });

  test('then a replay returns the same entry and adds none; a different comment with the same key is 400', async () => {
    const created = await partner.newGuarantee();
    const first = await partner.comment(created.id, 'Once.', { key: 'comment-key' });
    const replay = await partner.comment(created.id, 'Once.', { key: 'comment-key' });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replay']).toBe('true');
    expect(replay.text).toBe(first.text);
    expectErrorBody(await partner.comment(created.id, 'Twice?', { key: 'comment-key' }), 400, 'idempotency_key_reused');
    expect(await partner.historyEntries(created.id)).toHaveLength(2);
  });

  test('then an empty or too long comment is 400 and an unknown guarantee is 404', async () => {
    const created = await partner.newGuarantee();
    expectErrorBody(await partner.comment(created.id, ''), 400, 'validation_failed');
    expectErrorBody(await partner.comment(created.id, 'x'.repeat(2001)), 400, 'validation_failed');
    expectErrorBody(await partner.comment(999999, 'hello'), 404, 'not_found');
    expect(await partner.historyEntries(created.id)).toHaveLength(1);
  });

  test('then comments are accepted on a closed guarantee', async () => {
    const created = await partner.newGuarantee();
    await backOffice(world).decline(created.id);
    const response = await partner.comment(created.id, 'Understood.');
    expect(response.status).toBe(201);
    expect(response.body.status.code).toBe('declined');
  });
});

describe('When the partner reads the history', () => {
  test('then creation, changes, comments and status moves are listed in chronological order', async () => {
    const created = await partner.newGuarantee();
    await partner.patch(created.id, { rentalAmount: 3700 }, { ifMatch: 'W/"1"' });
    await partner.comment(created.id, 'Rent renegotiated.');
    await backOffice(world).approve(created.id);
    const history = (await partner.historyEntries(created.id)) as Array<{ comment: string; status: { code: string }; createdAt: string }>;
    expect(history.map((entry) => [entry.status.code, entry.comment])).toEqual([
      ['under_review', 'Rental insurance created; review started.'],
      ['under_review', 'Changed: rentalAmount.'],
      ['under_review', 'Rent renegotiated.'],
      ['approved', 'Proposal approved.'],
    ]);
    const times = history.map((entry) => entry.createdAt);
    expect([...times].sort()).toEqual(times);
  });

  test('then a token without the read scope gets 403 and no token gets 401', async () => {
    const created = await partner.newGuarantee();
    const writer = await world.newAgency({ scopes: ['ri:rental-insurances:write'], companyId: world.agency.companyId });
    const forbidden = await asPartner(world, writer).history(created.id);
    expectErrorBody(forbidden, 403, 'insufficient_scope');
    expect(forbidden.headers['www-authenticate']).toBe(
      'Bearer realm="rental-guarantee", error="insufficient_scope", scope="ri:rental-insurances:read"',
    );
    const anonymous = await asPartner(world, withAuthorization('')).history(created.id);
    expectErrorBody(anonymous, 401, 'unauthorized');
  });
});
