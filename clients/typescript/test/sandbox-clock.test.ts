/**
 * Sandbox time travel from the client: a partner's CI takes a guarantee through its review and
 * the expiry of its proposal in one call instead of waiting 30 days, and the client's next write
 * uses the ETag the travel answered.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PartnerApiError } from '../src/index.js';
import { newGuarantee, startHarness, type Harness } from './harness.js';

const DAY_MS = 86_400_000;
let h: Harness;
before(async () => {
  h = await startHarness('client-clock');
});
after(() => h?.close());

describe('advanceClock', () => {
  test('moves one guarantee 31 days on: reviewed, approved, then expired, each at its own time; another guarantee does not move', async () => {
    const client = h.client();
    const { data: created } = await client.rentalInsurances.create(newGuarantee());
    const { data: other } = await client.rentalInsurances.create(newGuarantee());
    const moved = await client.rentalInsurances.advanceClock(created.id, { by: 'P31D' });
    assert.equal(moved.status, 200);
    assert.equal(moved.data.rentalInsurance.status, 'expired');
    assert.equal(new Date(moved.data.now).getTime() - new Date(moved.data.previousNow).getTime(), 31 * DAY_MS);
    assert.equal(client.latestEtag(created.id), moved.etag);

    const history = await client.rentalInsurances.history(created.id);
    assert.deepEqual(
      history.map((entry) => entry.status.code),
      ['under_review', 'approved', 'expired'],
    );
    const approvedAt = new Date(history[1]!.createdAt!).getTime();
    assert.equal(new Date(history[2]!.createdAt!).getTime(), approvedAt + 30 * DAY_MS, 'expired 30 days after approval');
    assert.equal((await client.rentalInsurances.get(other.id)).data.status, 'under_review');
  });

  test('refuses to go back (409 clock_cannot_go_back) and a malformed duration (400), as typed errors', async () => {
    const client = h.client();
    const { data } = await client.rentalInsurances.create(newGuarantee());
    await assert.rejects(client.rentalInsurances.advanceClock(data.id, { to: '2001-01-01T00:00:00Z' }), (error: unknown) => {
      assert.ok(error instanceof PartnerApiError);
      assert.equal(error.status, 409);
      assert.equal(error.code, 'clock_cannot_go_back');
      return true;
    });
    await assert.rejects(
      client.rentalInsurances.advanceClock(data.id, { by: 'a month' }),
      (error: unknown) => error instanceof PartnerApiError && error.status === 400,
    );
  });
});
