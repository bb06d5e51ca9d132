/** ETag versions, If-Match on PATCH (428, 412, 400) and If-None-Match on GET (304). */
import { expectErrorBody } from '../support/error-body';
import { asPartner } from '../support/partner-api';
import { storedVersion } from '../support/stored-state';
import { useTestApp } from '../support/test-app';

const world = useTestApp({}, { agencies: 1 });
const partner = asPartner(world);

/** A guarantee at version 3 (two changes after creation). */
async function atVersion3() {
  const guarantee = await partner.newGuarantee();
  await partner.patch(guarantee.id, { externalId: 'V2' }, { ifMatch: 'W/"1"' }).expect(200);
  await partner.patch(guarantee.id, { externalId: 'V3' }, { ifMatch: 'W/"2"' }).expect(200);
  return (await partner.get(guarantee.id)).body as typeof guarantee;
}

describe('When a partner patches without If-Match', () => {
  test('then it is 428 precondition_required and nothing changes', async () => {
    const guarantee = await partner.newGuarantee();
    const response = await partner.patch(guarantee.id, { externalId: 'NO-PRECONDITION' }, { ifMatch: null });
    expectErrorBody(response, 428, 'precondition_required');
    expect(await storedVersion(world, guarantee.id)).toBe(1);
    expect((await partner.get(guarantee.id)).body).toEqual(guarantee);
  });

  test('then an empty If-Match names no version: 428 precondition_required or 400 if_match_invalid, and nothing changes', async () => {
    const guarantee = await partner.newGuarantee();
    const response = await partner.patch(guarantee.id, { externalId: 'X' }, { ifMatch: '' });
    expect([
      { status: 428, code: 'precondition_required' },
      { status: 400, code: 'if_match_invalid' },
    ]).toContainEqual({ status: response.status, code: response.body.code });
    expectErrorBody(response, response.status, response.body.code);
    expect(await storedVersion(world, guarantee.id)).toBe(1);
  });
});

describe('When a partner patches with a stale If-Match', () => {
  test('then it is 412 precondition_failed carrying the current ETag, and version and data stay intact', async () => {
    const guarantee = await atVersion3();
    const response = await partner.patch(guarantee.id, { externalId: 'LOST-UPDATE', rentalAmount: 1 }, { ifMatch: 'W/"2"' });
    expectErrorBody(response, 412, 'precondition_failed');
    expect(response.headers['etag']).toBe('W/"3"');
    expect(response.body.message).toContain('W/"3"');
    expect(await storedVersion(world, guarantee.id)).toBe(3);
    const read = await partner.get(guarantee.id);
    expect(read.headers['etag']).toBe('W/"3"');
    expect(read.body).toEqual(guarantee);
  });

  test('then a version from the future is 412 as well', async () => {
    const guarantee = await partner.newGuarantee();
    const response = await partner.patch(guarantee.id, { externalId: 'X' }, { ifMatch: 'W/"7"' });
    expectErrorBody(response, 412, 'precondition_failed');
    expect(response.headers['etag']).toBe('W/"1"');
  });

  test('then a list naming only stale versions is 412', async () => {
    const guarantee = await atVersion3();
    const response = await partner.patch(guarantee.id, { externalId: 'X' }, { ifMatch: 'W/"1", W/"2"' });
    expectErrorBody(response, 412, 'precondition_failed');
  });
});

describe('When a partner sends an If-Match that names no version', () => {
  test.each([
    ['*', '*'],
    ['a list containing *', 'W/"1", *'],
    ['garbage', 'version-1'],
    ['an unquoted number', '1'],
    ['a weak tag without quotes', 'W/1'],
    ['a lower-case weak prefix', 'w/"1"'],
  ])('then %s is 400 if_match_invalid and nothing changes', async (_label, ifMatch) => {
    const guarantee = await partner.newGuarantee();
    const response = await partner.patch(guarantee.id, { externalId: 'X' }, { ifMatch });
    expectErrorBody(response, 400, 'if_match_invalid');
    expect(await storedVersion(world, guarantee.id)).toBe(1);
  });
});

describe('When a partner sends a well-formed entity tag that is not a version', () => {
  test.each([['W/"abc"'], ['"v1"'], ['W/""']])('then %s matches no version: 412 precondition_failed and nothing changes', async (ifMatch) => {
    const guarantee = await partner.newGuarantee();
    const response = await partner.patch(guarantee.id, { externalId: 'X' }, { ifMatch });
    expectErrorBody(response, 412, 'precondition_failed');
    expect(response.headers['etag']).toBe('W/"1"');
    expect(await storedVersion(world, guarantee.id)).toBe(1);
  });

  // Entity tags compare as opaque strings (RFC 9110 §8.8.3.2): another spelling of the number is another tag.
  test.each([['W/"01"'], ['W/"1.0"'], ['W/"+1"'], ['"001"'], ['W/"0x1"']])(
    'then %s is not version 1: 412 precondition_failed and nothing changes',
    async (ifMatch) => {
      const guarantee = await partner.newGuarantee();
      const response = await partner.patch(guarantee.id, { externalId: 'X' }, { ifMatch });
      expectErrorBody(response, 412, 'precondition_failed');
      expect(response.headers['etag']).toBe('W/"1"');
      expect(await storedVersion(world, guarantee.id)).toBe(1);
    },
  );
});

describe('When a partner patches with the current ETag', () => {
  test.each([
    ['the weak form', 'W/"3"'],
    ['the strong form (compared weakly on purpose)', '"3"'],
    ['a list where one tag is current', 'W/"1", W/"3"'],
    ['a list mixing strong and weak forms', '"2", W/"3", "9"'],
    ['a list without spaces', 'W/"2",W/"3"'],
  ])('then %s matches and the change is applied (version 4)', async (_label, ifMatch) => {
    const guarantee = await atVersion3();
    const response = await partner.patch(guarantee.id, { externalId: 'V4' }, { ifMatch });
    expect(response.status).toBe(200);
    expect(response.headers['etag']).toBe('W/"4"');
    expect(response.body.externalId).toBe('V4');
    expect(await storedVersion(world, guarantee.id)).toBe(4);
  });

  test('then each change increments the version by exactly one, and reads report it', async () => {
    const guarantee = await partner.newGuarantee();
    const etags: string[] = [];
    let etag = 'W/"1"';
    for (const change of [
      { rentalAmount: 3600 },
      { tenant: { name: 'Nova Pessoa' } },
      { property: { address: { number: '2' } } },
      { condoFee: null },
    ]) {
      const response = await partner.patch(guarantee.id, change, { ifMatch: etag });
      expect(response.status).toBe(200);
      etag = response.headers['etag']!;
      etags.push(etag);
      expect((await partner.get(guarantee.id)).headers['etag']).toBe(etag);
    }
    expect(etags).toEqual(['W/"2"', 'W/"3"', 'W/"4"', 'W/"5"']);
    expect(await storedVersion(world, guarantee.id)).toBe(5);
  });

  test('then a no-op patch keeps the version, so the same ETag is still current afterwards', async () => {
    const guarantee = await partner.newGuarantee();
    const noop = await partner.patch(guarantee.id, { externalId: guarantee.externalId }, { ifMatch: 'W/"1"' });
    expect(noop.headers['etag']).toBe('W/"1"');
    const next = await partner.patch(guarantee.id, { externalId: 'REAL' }, { ifMatch: 'W/"1"' });
    expect(next.status).toBe(200);
    expect(next.headers['etag']).toBe('W/"2"');
  });

  test('then a stale tag together with an invalid value is refused (412 or 400) and changes nothing', async () => {
    const guarantee = await atVersion3();
    const response = await partner.patch(guarantee.id, { tenant: { phoneNumber: '(20) 98765-4321' } }, { ifMatch: 'W/"1"' });
    expect([
      { status: 412, code: 'precondition_failed' },
      { status: 400, code: 'validation_failed' },
    ]).toContainEqual({ status: response.status, code: response.body.code });
    expect(await storedVersion(world, guarantee.id)).toBe(3);
  });
});

describe('When a partner polls a guarantee with If-None-Match', () => {
  test('then the current ETag gives 304 without a body, with the ETag and the correlation id', async () => {
    const guarantee = await partner.newGuarantee();
    const response = await partner.get(guarantee.id).set({ 'If-None-Match': 'W/"1"', 'X-Correlation-Id': 'poll-1' });
    expect(response.status).toBe(304);
    expect(response.text ?? '').toBe('');
    expect(response.headers['etag']).toBe('W/"1"');
    expect(response.headers['x-correlation-id']).toBe('poll-1');
    expect(response.headers['content-length'] ?? '0').toBe('0');
  });

  test.each([
    ['the strong form', '"3"'],
    ['a list with the current tag', 'W/"2", W/"3"'],
    ['*', '*'],
  ])('then %s also gives 304', async (_label, ifNoneMatch) => {
    const guarantee = await atVersion3();
    const response = await partner.get(guarantee.id).set({ 'If-None-Match': ifNoneMatch });
    expect(response.status).toBe(304);
    expect(response.headers['etag']).toBe('W/"3"');
  });

  test('then an old ETag gives 200 with the body and the current ETag', async () => {
    const guarantee = await atVersion3();
    const response = await partner.get(guarantee.id).set({ 'If-None-Match': 'W/"2"' });
    expect(response.status).toBe(200);
    expect(response.headers['etag']).toBe('W/"3"');
    expect(response.body).toEqual(guarantee);
  });

  test('then after a change the previously current ETag gives 200 again', async () => {
    const guarantee = await partner.newGuarantee();
    expect((await partner.get(guarantee.id).set({ 'If-None-Match': 'W/"1"' })).status).toBe(304);
    await partner.patch(guarantee.id, { externalId: 'CHANGED' }, { ifMatch: 'W/"1"' }).expect(200);
    const response = await partner.get(guarantee.id).set({ 'If-None-Match': 'W/"1"' });
    expect(response.status).toBe(200);
    expect(response.headers['etag']).toBe('W/"2"');
    expect(response.body.externalId).toBe('CHANGED');
  });

  test('then If-None-Match on a guarantee that is not there is still 404', async () => {
    const response = await partner.get(987654321).set({ 'If-None-Match': '*' });
    expectErrorBody(response, 404, 'not_found');
  });
});
