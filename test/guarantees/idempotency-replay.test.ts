/** Idempotency-Key replays: a retried create or patch gets the stored answer, for 24 hours. */
import request from 'supertest';
import { guaranteeBody, newKey } from '../support/factories';
import { asPartner } from '../support/partner-api';
import { countGuarantees, countIdempotencyRecords } from '../support/stored-state';
import { useTestApp } from '../support/test-app';

const world = useTestApp({}, { agencies: 1 });
const partner = asPartner(world);

const replayedHeaders = (response: request.Response) => ({
  etag: response.headers['etag'],
  location: response.headers['location'],
  'service-effects': response.headers['service-effects'],
  'content-type': response.headers['content-type'],
});

describe('When a partner retries a create with the same key and body', () => {
  test('then it gets the identical stored answer with Idempotent-Replay true, and nothing new is created', async () => {
    const key = newKey();
    const body = guaranteeBody();
    const first = await partner.create(body, { key });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replay']).toBe('false');
    const countAfterFirst = await countGuarantees(world, world.agency);

    const replay = await partner.create(body, { key }).set('X-Correlation-Id', 'erp-retry-1');
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replay']).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(replayedHeaders(replay)).toEqual(replayedHeaders(first));
    expect(replay.headers['x-correlation-id']).toBe('erp-retry-1');
    expect(await countGuarantees(world, world.agency)).toBe(countAfterFirst);
    expect(await countIdempotencyRecords(world, world.agency)).toBeGreaterThanOrEqual(1);
  });

  test('then the replay repeats the creation answer even after the guarantee changed', async () => {
    const key = newKey();
    const body = guaranteeBody();
    const first = await partner.create(body, { key });
    await partner.patch(first.body.id, { externalId: 'CHANGED-SINCE' }).expect(200);
    const replay = await partner.create(body, { key });
    expect(replay.status).toBe(201);
    expect(replay.text).toBe(first.text);
    expect(replay.headers['etag']).toBe('W/"1"');
    expect(replay.headers['idempotent-replay']).toBe('true');
  });

  test.each([[`quote'and\\backslash`], [`x';DELETE/**/FROM/**/idempotency_records;--`], [`"E'\\\\'"`]])(
    'then a key full of SQL quoting characters (%s) is stored and replayed like any other',
    async (rawKey) => {
      const key = `${rawKey}-${newKey()}`;
      const body = guaranteeBody();
      const recordsBefore = await countIdempotencyRecords(world, world.agency);
      const first = await partner.create(body, { key });
      expect(first.status).toBe(201);
      expect(first.headers['idempotent-replay']).toBe('false');
      const replay = await partner.create(body, { key });
      expect(replay.status).toBe(201);
      expect(replay.headers['idempotent-replay']).toBe('true');
      expect(replay.text).toBe(first.text);
      const reused = await partner.create(guaranteeBody(), { key });
      expect(reused.status).toBe(400);
      expect(reused.body.code).toBe('idempotency_key_reused');
      expect(await countIdempotencyRecords(world, world.agency)).toBe(recordsBefore + 1);
    },
  );

  // A string body goes out byte for byte, so the test controls key order and whitespace.
  test('then a body with reordered keys and other whitespace is the same request and replays', async () => {
    const key = newKey();
    const body = guaranteeBody();
    const first = await partner.create(JSON.stringify(body), { key });
    expect(first.status).toBe(201);
    const reordered = JSON.stringify(reverseKeys(body), null, 4).replace(/\n/g, '\r\n  ');
    expect(reordered).not.toBe(JSON.stringify(body));
    const countBefore = await countGuarantees(world, world.agency);
    const replay = await partner.create(`  ${reordered}\n\n`, { key });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replay']).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(await countGuarantees(world, world.agency)).toBe(countBefore);
  });

  test('then the quoted structured-field form "abc" is the same key as abc', async () => {
    const key = `k-${newKey()}`;
    const body = guaranteeBody();
    const first = await partner.create(body, { key });
    expect(first.status).toBe(201);
    const quoted = await partner.create(body, { key: `"${key}"` });
    expect(quoted.status).toBe(201);
    expect(quoted.headers['idempotent-replay']).toBe('true');
    expect(quoted.text).toBe(first.text);
  });

  test('then a quoted key first used quoted replays when retried unquoted', async () => {
    const key = `q-${newKey()}`;
    const body = guaranteeBody();
    const first = await partner.create(body, { key: `"${key}"` });
    expect(first.status).toBe(201);
    const unquoted = await partner.create(body, { key });
    expect(unquoted.headers['idempotent-replay']).toBe('true');
    expect(unquoted.body.id).toBe(first.body.id);
  });
});

describe('When a partner retries a patch with the same key', () => {
  test('then the replay is answered before If-Match is evaluated again, so the original (now stale) If-Match is fine', async () => {
    const guarantee = await partner.newGuarantee();
    const key = newKey();
    const first = await partner.patch(guarantee.id, { rentalAmount: 3900 }, { key, ifMatch: 'W/"1"' });
    expect(first.status).toBe(200);
    expect(first.headers['etag']).toBe('W/"2"');

    const replay = await partner.patch(guarantee.id, { rentalAmount: 3900 }, { key, ifMatch: 'W/"1"' });
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replay']).toBe('true');
    expect(replay.headers['etag']).toBe('W/"2"');
    expect(replay.headers['service-effects']).toBe(first.headers['service-effects']);
    expect(replay.text).toBe(first.text);
    expect(replay.headers['location']).toBeUndefined();
    const row = await world.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(guarantee.id) } });
    expect(row.version).toBe(2);
  });
});

describe('When a stored answer is older than 24 hours', () => {
  test('then the key counts as new: a different body is created (201, not idempotency_key_reused)', async () => {
    const key = newKey();
    const first = await partner.create(guaranteeBody(), { key });
    expect(first.status).toBe(201);
    await world.db.idempotencyRecord.update({
      where: { companyId_key: { companyId: world.agency.companyId, key } },
      data: { createdAt: new Date(Date.now() - 25 * 3_600_000) },
    });
    const countBefore = await countGuarantees(world, world.agency);
    const again = await partner.create(guaranteeBody({ rentalAmount: 4200 }), { key });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replay']).toBe('false');
    expect(again.body.id).not.toBe(first.body.id);
    expect(again.body.rentalAmount).toBe(4200);
    expect(await countGuarantees(world, world.agency)).toBe(countBefore + 1);
    const record = await world.db.idempotencyRecord.findUniqueOrThrow({ where: { companyId_key: { companyId: world.agency.companyId, key } } });
    expect(Date.now() - record.createdAt.getTime()).toBeLessThan(60_000);
  });

  test('then a stored answer of 23 hours still replays', async () => {
    const key = newKey();
    const body = guaranteeBody();
    const first = await partner.create(body, { key });
    await world.db.idempotencyRecord.update({
      where: { companyId_key: { companyId: world.agency.companyId, key } },
      data: { createdAt: new Date(Date.now() - 23 * 3_600_000) },
    });
    const replay = await partner.create(body, { key });
    expect(replay.headers['idempotent-replay']).toBe('true');
    expect(replay.text).toBe(first.text);
  });
});

function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .reverse()
      .map((name) => [name, reverseKeys((value as Record<string, unknown>)[name])]),
  );
}
