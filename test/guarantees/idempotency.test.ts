/** Idempotency-Key on create and patch: replays, reuse, format, concurrency, failures, scope and retention. */
import { claimLock } from '../../src/http/idempotency';
import { poolOf } from '../../src/database/prisma-client';
import request from 'supertest';
import { guaranteeBody, newKey } from '../support/factories';
import { expectErrorBody } from '../support/error-body';
import { startTestApp, type Agency, type TestApp } from '../support/test-app';
import { COLLECTION, countGuarantees, countIdempotencyRecords, created, getGuarantee, itemPath, patchGuarantee, postGuarantee } from './guarantee-http';

let t: TestApp;
let agency: Agency;
beforeAll(async () => {
  t = await startTestApp();
  agency = await t.newAgency();
});
afterAll(() => t.close());

const replayedHeaders = (response: request.Response) => ({
  etag: response.headers['etag'],
  location: response.headers['location'],
  'service-effects': response.headers['service-effects'],
  'content-type': response.headers['content-type'],
});

/** POST with a raw JSON text, to control key order and whitespace. */
const postRaw = (who: Agency, key: string, text: string) =>
  request(t.app).post(COLLECTION).set(who.auth).set('Idempotency-Key', key).set('Content-Type', 'application/json').send(text);

describe('When a partner retries a create with the same key and body', () => {
  test('then it gets the identical stored answer with Idempotent-Replay true, and nothing new is created', async () => {
    const key = newKey();
    const body = guaranteeBody();
    const first = await postGuarantee(t, agency, body, key);
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replay']).toBe('false');
    const countAfterFirst = await countGuarantees(t, agency);

    const replay = await postGuarantee(t, agency, body, key).set('X-Correlation-Id', 'erp-retry-1');
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replay']).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(replayedHeaders(replay)).toEqual(replayedHeaders(first));
    expect(replay.headers['x-correlation-id']).toBe('erp-retry-1');
    expect(await countGuarantees(t, agency)).toBe(countAfterFirst);
    expect(await countIdempotencyRecords(t, agency)).toBeGreaterThanOrEqual(1);
  });

  test('then the replay repeats the creation answer even after the guarantee changed', async () => {
    const key = newKey();
    const body = guaranteeBody();
    const first = await postGuarantee(t, agency, body, key);
    await patchGuarantee(t, agency, first.body.id, { externalId: 'CHANGED-SINCE' }).expect(200);
    const replay = await postGuarantee(t, agency, body, key);
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
      const recordsBefore = await countIdempotencyRecords(t, agency);
      const first = await postGuarantee(t, agency, body, key);
      expect(first.status).toBe(201);
      expect(first.headers['idempotent-replay']).toBe('false');
      const replay = await postGuarantee(t, agency, body, key);
      expect(replay.status).toBe(201);
      expect(replay.headers['idempotent-replay']).toBe('true');
      expect(replay.text).toBe(first.text);
      const reused = await postGuarantee(t, agency, guaranteeBody(), key);
      expect(reused.status).toBe(400);
      expect(reused.body.code).toBe('idempotency_key_reused');
      expect(await countIdempotencyRecords(t, agency)).toBe(recordsBefore + 1);
    },
  );

  test('then a body with reordered keys and other whitespace is the same request and replays', async () => {
    const key = newKey();
    const body = guaranteeBody();
    const first = await postRaw(agency, key, JSON.stringify(body));
    expect(first.status).toBe(201);
    const reordered = JSON.stringify(reverseKeys(body), null, 4).replace(/\n/g, '\r\n  ');
    expect(reordered).not.toBe(JSON.stringify(body));
    const countBefore = await countGuarantees(t, agency);
    const replay = await postRaw(agency, key, `  ${reordered}\n\n`);
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replay']).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(await countGuarantees(t, agency)).toBe(countBefore);
  });

  test('then the quoted structured-field form "abc" is the same key as abc', async () => {
    const key = `k-${newKey()}`;
    const body = guaranteeBody();
    const first = await postGuarantee(t, agency, body, key);
    expect(first.status).toBe(201);
    const quoted = await postGuarantee(t, agency, body, `"${key}"`);
    expect(quoted.status).toBe(201);
    expect(quoted.headers['idempotent-replay']).toBe('true');
    expect(quoted.text).toBe(first.text);
  });

  test('then a quoted key first used quoted replays when retried unquoted', async () => {
    const key = `q-${newKey()}`;
    const body = guaranteeBody();
    const first = await postGuarantee(t, agency, body, `"${key}"`);
    expect(first.status).toBe(201);
    const unquoted = await postGuarantee(t, agency, body, key);
    expect(unquoted.headers['idempotent-replay']).toBe('true');
    expect(unquoted.body.id).toBe(first.body.id);
  });
});

describe('When a partner reuses a key for a different request', () => {
  test('then a different body is 400 idempotency_key_reused and nothing is created', async () => {
    const key = newKey();
    const first = await postGuarantee(t, agency, guaranteeBody(), key);
    expect(first.status).toBe(201);
    const countBefore = await countGuarantees(t, agency);
    const reused = await postGuarantee(t, agency, guaranteeBody({ rentalAmount: 3600 }), key);
    expectErrorBody(reused, 400, 'idempotency_key_reused');
    expect(reused.headers['idempotent-replay']).toBeUndefined();
    expect(await countGuarantees(t, agency)).toBe(countBefore);
  });

  test('then a different path or method (the create key on a patch) is 400 idempotency_key_reused and nothing changes', async () => {
    const key = newKey();
    const first = await postGuarantee(t, agency, guaranteeBody(), key);
    const reused = await patchGuarantee(t, agency, first.body.id, { externalId: 'NEW' }, { key });
    expectErrorBody(reused, 400, 'idempotency_key_reused');
    expect((await getGuarantee(t, agency, first.body.id)).headers['etag']).toBe('W/"1"');
  });

  test('then the same patch body on another guarantee is a different request (400 idempotency_key_reused)', async () => {
    const key = newKey();
    const a = await created(t, agency);
    const b = await created(t, agency);
    await patchGuarantee(t, agency, a.id, { externalId: 'SAME' }, { key }).expect(200);
    const reused = await patchGuarantee(t, agency, b.id, { externalId: 'SAME' }, { key });
    expectErrorBody(reused, 400, 'idempotency_key_reused');
    expect((await getGuarantee(t, agency, b.id)).body.externalId).toBe(b.externalId);
  });
});

describe('When the Idempotency-Key header is missing or malformed', () => {
  test('then a create without the key is 400 idempotency_key_required and nothing is created', async () => {
    const countBefore = await countGuarantees(t, agency);
    const response = await request(t.app).post(COLLECTION).set(agency.auth).send(guaranteeBody());
    expectErrorBody(response, 400, 'idempotency_key_required');
    expect(await countGuarantees(t, agency)).toBe(countBefore);
  });

  test('then a patch without the key is 400 idempotency_key_required', async () => {
    const guarantee = await created(t, agency);
    const response = await request(t.app)
      .patch(itemPath(guarantee.id))
      .set(agency.auth)
      .set('If-Match', 'W/"1"')
      .set('Content-Type', 'application/merge-patch+json')
      .send(JSON.stringify({ externalId: 'X' }));
    expectErrorBody(response, 400, 'idempotency_key_required');
  });

  test.each([
    ['256 characters', 'k'.repeat(256)],
    ['a non-ASCII character', 'chave-é-única'],
    ['a space inside', 'two words'],
    ['a quoted empty string', '""'],
    ['a control character', 'tab\there'],
    ['a quoted key of 256 characters', `"${'k'.repeat(256)}"`],
  ])('then a key with %s is 400 idempotency_key_invalid and nothing is created', async (_label, key) => {
    const countBefore = await countGuarantees(t, agency);
    const response = await postGuarantee(t, agency, guaranteeBody(), key);
    expectErrorBody(response, 400, 'idempotency_key_invalid');
    expect(await countGuarantees(t, agency)).toBe(countBefore);
  });

  test('then a key of exactly 255 visible ASCII characters is accepted', async () => {
    const key = `${'!~'.repeat(127)}z`;
    expect(key).toHaveLength(255);
    const response = await postGuarantee(t, agency, guaranteeBody(), key);
    expect(response.status).toBe(201);
  });

  test('then a key of 1 character is accepted', async () => {
    const other = await t.newAgency();
    const response = await postGuarantee(t, other, guaranteeBody(), 'x');
    expect(response.status).toBe(201);
  });
});

describe('When the same key arrives several times at the same moment', () => {
  test('then exactly one guarantee is created; the others get 409 idempotency_key_in_use (Retry-After: 1) or the replay', async () => {
    const own = await t.newAgency();
    const key = newKey();
    const body = guaranteeBody();
    const responses = await Promise.all(Array.from({ length: 5 }, () => postGuarantee(t, own, body, key)));

    expect(await countGuarantees(t, own)).toBe(1);
    const firstExecutions = responses.filter((response) => response.status === 201 && response.headers['idempotent-replay'] === 'false');
    expect(firstExecutions).toHaveLength(1);
    const winner = firstExecutions[0]!;
    for (const response of responses) {
      if (response === winner) continue;
      if (response.status === 201) {
        expect(response.headers['idempotent-replay']).toBe('true');
        expect(response.text).toBe(winner.text);
      } else {
        expectErrorBody(response, 409, 'idempotency_key_in_use');
        expect(response.headers['retry-after']).toBe('1');
      }
    }

    // Retrying after the first finished gets the replay.
    const retry = await postGuarantee(t, own, body, key);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replay']).toBe('true');
    expect(retry.text).toBe(winner.text);
  });

  test('then while the key is held by a request still executing elsewhere, a retry is 409 idempotency_key_in_use and applies nothing', async () => {
    const own = await t.newAgency();
    const key = newKey();
    // Hold the key's lock the way an executing request (in any service process) holds it.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = t.db.$transaction(
      async (tx) => {
        const [{ locked: held }] = await tx.$queryRawUnsafe<Array<{ locked: boolean }>>(claimLock('$1::text', '$2::text'), own.companyId, key);
        expect(held).toBe(true);
        locked();
        await released;
      },
      { timeout: 20_000 },
    );
    await Promise.race([isLocked, holder]);
    try {
      const response = await postGuarantee(t, own, guaranteeBody(), key);
      expectErrorBody(response, 409, 'idempotency_key_in_use');
      expect(response.headers['retry-after']).toBe('1');
      expect(await countGuarantees(t, own)).toBe(0);
    } finally {
      release();
      await holder;
    }
    const afterRelease = await postGuarantee(t, own, guaranteeBody(), key);
    expect(afterRelease.status).toBe(201);
    expect(afterRelease.headers['idempotent-replay']).toBe('false');
  });

  test('then a write whose key gets a record from a write that did not share its lock (an older version beside it) is 409 and applies nothing', async () => {
    const own = await t.newAgency();
    const key = newKey();
    // The other write's transaction: it stored its record for the key and has not committed yet.
    const other = await poolOf(t.db)!.connect();
    try {
      await other.query('BEGIN');
      await other.query(
        `INSERT INTO idempotency_records (company_id, key, fingerprint, response_status, response_headers, response_body) VALUES ($1, $2, 'other-request', 201, '{}', NULL)`,
        [own.companyId, key],
      );
      const pending = postGuarantee(t, own, guaranteeBody(), key).then((response) => response);
      // The write runs up to its COMMIT, where its own record waits on the other one's.
      for (let waited = 0; ; waited += 50) {
        const blocked = await t.db.$queryRaw<Array<{ n: number }>>`
          SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO idempotency_records%'`;
        if (blocked[0]!.n > 0) break;
        if (waited > 10_000) throw new Error('the write never reached its COMMIT');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await other.query('COMMIT');
      const response = await pending;
      expectErrorBody(response, 409, 'idempotency_key_in_use');
      expect(response.headers['retry-after']).toBe('1');
    } finally {
      other.release();
    }
    expect(await countGuarantees(t, own)).toBe(0);
    // The committed record governs the key from now on.
    expectErrorBody(await postGuarantee(t, own, guaranteeBody(), key), 400, 'idempotency_key_reused');
  });

  test('then concurrent patches with one key change the guarantee once (version 2)', async () => {
    const own = await t.newAgency();
    const guarantee = await created(t, own);
    const key = newKey();
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => patchGuarantee(t, own, guarantee.id, { rentalAmount: 4100 }, { key, ifMatch: 'W/"1"' })),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.every((status) => status === 200 || status === 409)).toBe(true);
    expect(responses.filter((response) => response.status === 200 && response.headers['idempotent-replay'] === 'false')).toHaveLength(1);
    for (const response of responses.filter((item) => item.status === 409)) {
      expectErrorBody(response, 409, 'idempotency_key_in_use');
      expect(response.headers['retry-after']).toBe('1');
    }
    const row = await t.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(guarantee.id) } });
    expect(row.version).toBe(2);
  });
});

describe('When a write with a key fails', () => {
  test('then a validation error stores nothing and the same key then succeeds with a valid body', async () => {
    const key = newKey();
    const recordsBefore = await countIdempotencyRecords(t, agency);
    const invalid = await postGuarantee(t, agency, guaranteeBody({ rentalAmount: 0 }), key);
    expectErrorBody(invalid, 400, 'validation_failed');
    expect(await countIdempotencyRecords(t, agency)).toBe(recordsBefore);
    expect(await t.db.idempotencyRecord.findUnique({ where: { companyId_key: { companyId: agency.companyId, key } } })).toBeNull();

    const valid = await postGuarantee(t, agency, guaranteeBody(), key);
    expect(valid.status).toBe(201);
    expect(valid.headers['idempotent-replay']).toBe('false');
  });

  test('then a rule error (bad check digits) stores nothing either', async () => {
    const key = newKey();
    const body = guaranteeBody();
    (body['tenant'] as Record<string, unknown>)['cpfCnpj'] = '529.982.247-24';
    expectErrorBody(await postGuarantee(t, agency, body, key), 400, 'validation_failed');
    const valid = await postGuarantee(t, agency, guaranteeBody(), key);
    expect(valid.status).toBe(201);
  });

  test('then a conflict (duplicate co-tenant) stores nothing and creates nothing', async () => {
    const key = newKey();
    const body = guaranteeBody();
    body['coTenants'] = [{ cpfCnpj: (body['tenant'] as { cpfCnpj: string }).cpfCnpj, name: 'Same' }];
    const countBefore = await countGuarantees(t, agency);
    expectErrorBody(await postGuarantee(t, agency, body, key), 409, 'duplicate_co_tenant');
    expect(await countGuarantees(t, agency)).toBe(countBefore);
    expect((await postGuarantee(t, agency, guaranteeBody(), key)).status).toBe(201);
  });

  test('then a failed patch (stale If-Match) stores nothing and the same key works with the current ETag', async () => {
    const guarantee = await created(t, agency);
    await patchGuarantee(t, agency, guarantee.id, { externalId: 'V2' }).expect(200);
    const key = newKey();
    const stale = await patchGuarantee(t, agency, guarantee.id, { externalId: 'V3' }, { key, ifMatch: 'W/"1"' });
    expect(stale.status).toBe(412);
    const retried = await patchGuarantee(t, agency, guarantee.id, { externalId: 'V3' }, { key, ifMatch: 'W/"2"' });
    expect(retried.status).toBe(200);
    expect(retried.headers['idempotent-replay']).toBe('false');
    expect(retried.headers['etag']).toBe('W/"3"');
  });
});

describe('When a partner retries a patch with the same key', () => {
  test('then the replay is answered before If-Match is evaluated again, so the original (now stale) If-Match is fine', async () => {
    const guarantee = await created(t, agency);
    const key = newKey();
    const first = await patchGuarantee(t, agency, guarantee.id, { rentalAmount: 3900 }, { key, ifMatch: 'W/"1"' });
    expect(first.status).toBe(200);
    expect(first.headers['etag']).toBe('W/"2"');

    const replay = await patchGuarantee(t, agency, guarantee.id, { rentalAmount: 3900 }, { key, ifMatch: 'W/"1"' });
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replay']).toBe('true');
    expect(replay.headers['etag']).toBe('W/"2"');
    expect(replay.headers['service-effects']).toBe(first.headers['service-effects']);
    expect(replay.text).toBe(first.text);
    expect(replay.headers['location']).toBeUndefined();
    const row = await t.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(guarantee.id) } });
    expect(row.version).toBe(2);
  });
});

describe('When two agencies use the same key', () => {
  test('then keys are scoped per agency: each agency creates its own guarantee', async () => {
    const a = await t.newAgency();
    const b = await t.newAgency();
    const key = `shared-${newKey()}`;
    const body = guaranteeBody();
    const fromA = await postGuarantee(t, a, body, key);
    const fromB = await postGuarantee(t, b, body, key);
    expect([fromA.status, fromB.status]).toEqual([201, 201]);
    expect(fromB.headers['idempotent-replay']).toBe('false');
    expect(fromB.body.id).not.toBe(fromA.body.id);
    expect(fromB.body.creator.name).not.toBe(fromA.body.creator.name);
    expect([await countGuarantees(t, a), await countGuarantees(t, b)]).toEqual([1, 1]);

    // And a different body under B's use of the key does not collide with A's record.
    const fromC = await t.newAgency();
    const different = await postGuarantee(t, fromC, guaranteeBody({ rentalAmount: 999 }), key);
    expect(different.status).toBe(201);
  });
});

describe('When a stored answer is older than 24 hours', () => {
  test('then the key counts as new: a different body is created (201, not idempotency_key_reused)', async () => {
    const key = newKey();
    const first = await postGuarantee(t, agency, guaranteeBody(), key);
    expect(first.status).toBe(201);
    await t.db.idempotencyRecord.update({
      where: { companyId_key: { companyId: agency.companyId, key } },
      data: { createdAt: new Date(Date.now() - 25 * 3_600_000) },
    });
    const countBefore = await countGuarantees(t, agency);
    const again = await postGuarantee(t, agency, guaranteeBody({ rentalAmount: 4200 }), key);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replay']).toBe('false');
    expect(again.body.id).not.toBe(first.body.id);
    expect(again.body.rentalAmount).toBe(4200);
    expect(await countGuarantees(t, agency)).toBe(countBefore + 1);
    const record = await t.db.idempotencyRecord.findUniqueOrThrow({ where: { companyId_key: { companyId: agency.companyId, key } } });
    expect(Date.now() - record.createdAt.getTime()).toBeLessThan(60_000);
  });

  test('then a stored answer of 23 hours still replays', async () => {
    const key = newKey();
    const body = guaranteeBody();
    const first = await postGuarantee(t, agency, body, key);
    await t.db.idempotencyRecord.update({
      where: { companyId_key: { companyId: agency.companyId, key } },
      data: { createdAt: new Date(Date.now() - 23 * 3_600_000) },
    });
    const replay = await postGuarantee(t, agency, body, key);
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
