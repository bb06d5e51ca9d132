/**
 * The client against the real service: writes whose answer is lost are retried with the same
 * Idempotency-Key and answered by the service's replay; If-Match comes from the latest ETag; a
 * stale version is 412, never retried, and modify() re-reads and re-applies.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PartnerApiError, UnknownEtagError } from '../src/index.js';
import { header, newGuarantee, startHarness, type Harness } from './harness.js';

let h: Harness;
before(async () => {
  h = await startHarness('client-writes');
});
after(() => h?.close());

describe('idempotent writes', () => {
  test('a create whose first answer is lost is retried with the same key and gets the replay (Idempotent-Replay: true)', async () => {
    const client = h.client();
    const body = newGuarantee();
    h.proxy.inject({ method: 'POST', path: '/rental-guarantee/v1/rental-insurances$', action: { dropAnswer: true } });
    const created = await client.rentalInsurances.create(body);
    assert.equal(created.status, 201);
    assert.equal(created.replayed, true);
    assert.equal(created.attempts, 2);
    const posts = h.proxy
      .requestsTo('/rental-guarantee/v1/rental-insurances', 'POST')
      .filter((request) => request.body.includes(body.property.externalId!));
    assert.deepEqual(
      posts.map((request) => request.outcome),
      ['dropped', 201],
    );
    assert.equal(header(posts[0]!, 'idempotency-key'), header(posts[1]!, 'idempotency-key'));
    const listed = await client.rentalInsurances.list({ propertyExternalId: body.property.externalId! });
    assert.equal(listed.data.page.totalElements, 1, 'created once');
    assert.equal(listed.data._embedded?.rentalInsurances?.[0]?.id, created.data.id);
  });

  test('a patch whose answer is lost is replayed too (the replay is answered before If-Match is checked again)', async () => {
    const client = h.client();
    const { data } = await client.rentalInsurances.create(newGuarantee());
    h.proxy.inject({ method: 'PATCH', path: `/rental-guarantee/v1/rental-insurances/${data.id}$`, action: { dropAnswer: true } });
    const patched = await client.rentalInsurances.patch(data.id, { condoFee: 900 });
    assert.equal(patched.replayed, true);
    assert.equal(patched.etag, 'W/"2"');
    assert.equal(patched.data.condoFee, 900);
  });

  test("a replay's older ETag does not move If-Match back", async () => {
    const client = h.client();
    const body = newGuarantee();
    const key = `create-${body.property.externalId}`;
    const { data } = await client.rentalInsurances.create(body, { idempotencyKey: key });
    await client.rentalInsurances.patch(data.id, { condoFee: 950 });
    const replay = await client.rentalInsurances.create(body, { idempotencyKey: key });
    assert.equal(replay.replayed, true);
    assert.equal(replay.etag, 'W/"1"');
    assert.equal(client.latestEtag(data.id), 'W/"2"');
    assert.equal((await client.rentalInsurances.patch(data.id, { condoFee: 960 })).etag, 'W/"3"');
  });

  test('each call is a new logical write with a new key; passing the same key again gets the replay', async () => {
    const client = h.client();
    const body = newGuarantee();
    const first = await client.rentalInsurances.create(body, { idempotencyKey: `order-${body.property.externalId}` });
    const again = await client.rentalInsurances.create(body, { idempotencyKey: `order-${body.property.externalId}` });
    assert.equal(again.replayed, true);
    assert.equal(again.data.id, first.data.id);
    const other = await client.rentalInsurances.create(body);
    assert.equal(other.replayed, false);
    assert.notEqual(other.data.id, first.data.id);
  });
});

describe('If-Match and versions', () => {
  test('writes send the latest ETag the client saw, whichever call it came from', async () => {
    const client = h.client();
    const { data } = await client.rentalInsurances.create(newGuarantee());
    await client.rentalInsurances.patch(data.id, { otherFees: 10 });
    const added = await client.coTenants.add(data.id, { cpfCnpj: '111.444.777-35', name: 'João Pereira Santos' });
    const changed = await client.coTenants.patch(data.id, '11144477735', { phoneNumber: '(21) 99876-5432' });
    const removed = await client.coTenants.remove(data.id, '11144477735');
    assert.deepEqual([added.etag, changed.etag, removed.etag], ['W/"3"', 'W/"4"', 'W/"5"']);
    const sent = h.proxy.requests.filter(
      (request) => request.path.startsWith(`/rental-guarantee/v1/rental-insurances/${data.id}`) && request.method !== 'GET',
    );
    assert.deepEqual(
      sent.map((request) => header(request, 'if-match')),
      ['W/"1"', 'W/"2"', 'W/"3"', 'W/"4"'],
    );
  });

  test('a write on a guarantee the client never read names what to do, without sending anything', async () => {
    const { data } = await h.client().rentalInsurances.create(newGuarantee());
    const stranger = h.client();
    const count = h.proxy.requests.length;
    await assert.rejects(stranger.rentalInsurances.patch(data.id, { otherFees: 1 }), UnknownEtagError);
    assert.equal(h.proxy.requests.length, count);
  });

  test('a stale version is 412 with the current ETag, never retried; modify() re-reads and re-applies', async () => {
    const mine = h.client();
    const theirs = h.client();
    const { data } = await mine.rentalInsurances.create(newGuarantee());
    await theirs.rentalInsurances.get(data.id);
    await theirs.rentalInsurances.patch(data.id, { externalId: 'CHANGED-BY-THEM' });

    const stale = await mine.rentalInsurances.patch(data.id, { otherFees: 5 }).catch((error: unknown) => error);
    assert.ok(stale instanceof PartnerApiError);
    assert.equal(stale.status, 412);
    assert.equal(stale.code, 'precondition_failed');
    assert.equal(stale.etag, 'W/"2"');
    assert.equal(stale.attempts, 1);

    let calls = 0;
    const modified = await mine.rentalInsurances.modify(data.id, (current) => {
      calls += 1;
      return { otherFees: (current.otherFees ?? 0) + 5 };
    });
    assert.equal(calls, 1);
    assert.equal(modified.data.otherFees, 5);
    assert.equal(modified.data.externalId, 'CHANGED-BY-THEM');
    assert.equal(modified.etag, 'W/"3"');
  });

  test('getIfChanged answers undefined while nothing changed (304)', async () => {
    const client = h.client();
    const created = await client.rentalInsurances.create(newGuarantee());
    assert.equal(await client.rentalInsurances.getIfChanged(created.data.id, created.etag!), undefined);
    await client.rentalInsurances.patch(created.data.id, { condoFee: 1 });
    assert.equal((await client.rentalInsurances.getIfChanged(created.data.id, created.etag!))?.etag, 'W/"2"');
  });

  test('a state conflict is a typed error with the service code and the correlation id sent', async () => {
    const client = h.client();
    const { data } = await client.rentalInsurances.create(newGuarantee());
    const error = await client.rentalInsurances.accept(data.id, { correlationId: 'accept-under-review' }).catch((caught: unknown) => caught);
    assert.ok(error instanceof PartnerApiError);
    assert.equal(error.status, 409);
    assert.equal(error.code, 'invalid_state');
    assert.equal(error.correlationId, 'accept-under-review');
    assert.equal(error.attempts, 1);
  });
});
