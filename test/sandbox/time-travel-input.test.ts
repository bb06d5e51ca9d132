/**
 * Sandbox time travel refuses what it cannot do, with the error body and without changing
 * anything (issue 26 item 2); production has no such operation at all.
 */
import request from 'supertest';
import { TEST_WEBHOOK_KEY } from '../support/factories';
import { expectDetailFor, expectErrorBody } from '../support/error-body';
import { API, asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { clockOffset } from './time-travel-support';

const world = useTestApp({ ENVIRONMENT: 'sandbox' }, { agencies: 1 });
const partner = asPartner(world);

describe('When the body of a time travel is not exactly one valid `by` or `to`, then it is 400 and nothing changes', () => {
  test.each([
    ['both by and to', { by: 'P1D', to: '2030-01-01T00:00:00Z' }, 'validation_failed'],
    ['neither', {}, 'validation_failed'],
    ['a fractional duration', { by: 'P1.5D' }, 'validation_failed'],
    ['a negative duration', { by: '-P1D' }, 'validation_failed'],
    ['an empty duration', { by: 'P' }, 'validation_failed'],
    ['a duration without its time part', { by: 'P1DT' }, 'validation_failed'],
    ['a date that is not a date-time', { to: '2030-01-01' }, 'validation_failed'],
    ['an unknown field', { by: 'P1D', at: 'now' }, 'validation_failed'],
    ['more than 1,830 days', { by: 'P6Y' }, 'clock_advance_too_far'],
    ['a time more than 1,830 days ahead', { to: '2099-01-01T00:00:00Z' }, 'clock_advance_too_far'],
    ['a duration past year 9999 (issue 34: it answered 500)', { by: 'P274000Y' }, 'clock_advance_too_far'],
    ['a duration with more digits than the format allows', { by: 'P9999999Y' }, 'validation_failed'],
    ['a time past year 9999', { to: '10000-01-01T00:00:00Z' }, 'validation_failed'],
    ['a time of year 0', { to: '0000-01-01T00:00:00Z' }, 'validation_failed'],
  ])('%s', async (_case, body, code) => {
    const created = await partner.newGuarantee();
    const response = await partner.advanceClock(created.id, body);
    expectErrorBody(response, 400, code);
    if ('by' in body && code === 'clock_advance_too_far') expectDetailFor(response, 'by');
    expect(await clockOffset(world, created.id)).toBe(0n);
    expect(await partner.current(created.id)).toMatchObject({ status: 'under_review', updatedAt: created.updatedAt, etag: 'W/"1"' });
  });
});

test('When a guarantee’s clock would go more than 36,525 days ahead of the wall clock in all, then it is 400 clock_advance_too_far and the clock stays', async () => {
  const created = await partner.newGuarantee();
  // 19 calls of 1,830 days reach 34,770 days; the 20th would pass 36,525.
  for (let call = 0; call < 19; call += 1) expect((await partner.advanceClock(created.id, { by: 'P1830D' })).status).toBe(200);
  const offset = await clockOffset(world, created.id);
  const further = await partner.advanceClock(created.id, { by: 'P1830D' });
  expectErrorBody(further, 400, 'clock_advance_too_far');
  expectDetailFor(further, 'by');
  expect(further.body.message).toContain('36525 days');
  expect(await clockOffset(world, created.id)).toBe(offset);
  // Up to the bound itself is still allowed.
  const upTo = new Date(Date.now() + 36_525 * 86_400_000 - 3_600_000).toISOString();
  expect((await partner.advanceClock(created.id, { to: upTo })).status).toBe(200);
});

test('When the time asked for is before the guarantee’s time, then it is 409 clock_cannot_go_back and its clock stays', async () => {
  const created = await partner.newGuarantee();
  const moved = await partner.advanceClock(created.id, { by: 'PT1S' });
  expect(moved.status).toBe(200);
  const offset = await clockOffset(world, created.id);

  const back = await partner.advanceClock(created.id, { to: new Date(Date.now() - 3_600_000).toISOString() });
  expectErrorBody(back, 409, 'clock_cannot_go_back');
  expect(back.body.message).toContain(new Date(Date.now()).toISOString().slice(0, 10));
  expect(await clockOffset(world, created.id)).toBe(offset);
});

test('When the guarantee is not the agency’s, or the key or scope is missing, then the usual answers come and nothing moves', async () => {
  const other = await world.newAgency();
  const theirs = await asPartner(world, other).newGuarantee();
  expectErrorBody(await partner.advanceClock(theirs.id, { by: 'P1D' }), 404, 'not_found');
  expectErrorBody(await partner.advanceClock(theirs.id, { by: 'P1D' }, { key: null }), 400, 'idempotency_key_required');
  const reader = await world.newAgency({ scopes: ['ri:rental-insurances:read'] });
  expectErrorBody(await asPartner(world, reader).advanceClock(theirs.id, { by: 'P1D' }), 403, 'insufficient_scope');
  expect(await clockOffset(world, theirs.id)).toBe(0n);
});

test('When the same key is sent again, then the answer is replayed and the clock moves once', async () => {
  const created = await partner.newGuarantee();
  const first = await partner.advanceClock(created.id, { by: 'P1D' }, { key: 'travel-once' });
  const again = await partner.advanceClock(created.id, { by: 'P1D' }, { key: 'travel-once' });
  expect([first.status, again.status]).toEqual([200, 200]);
  expect(again.headers['idempotent-replay']).toBe('true');
  expect(again.body).toEqual(first.body);
  expect(Number(await clockOffset(world, created.id))).toBeLessThan(86_400_000 + 60_000);
});

describe('In production', () => {
  const production = useTestApp(
    { ENVIRONMENT: 'production', PUBLIC_ORIGIN: 'https://api.example.test', WEBHOOK_SECRET_KEY: TEST_WEBHOOK_KEY },
    { agencies: 1 },
  );

  test('When a partner calls the time travel, then it is answered as an unknown path, and the published document does not list it', async () => {
    const producer = asPartner(production);
    const created = await producer.newGuarantee();
    const unknown = await producer.advanceClock(created.id, { by: 'P1D' });
    expectErrorBody(unknown, 404, 'route_not_found');
    const nonsense = await producer.request('post', `${API}/v1/rental-insurances/${created.id}/no-such-action`).set('Idempotency-Key', 'k');
    expect(nonsense.status).toBe(404);
    expect(unknown.body.message).toBe(nonsense.body.message);

    const published = await request(production.app).get(`${API}/openapi.json`);
    expect(published.status).toBe(200);
    // Only the introduction's sandbox section still names it, as what the sandbox offers.
    const operations = Object.values(published.body.paths as Record<string, Record<string, { operationId?: string }>>).flatMap((item) =>
      Object.values(item).map((operation) => operation.operationId),
    );
    expect(operations).not.toContain('advanceRentalInsuranceClock');
    expect(operations).toContain('acceptRentalInsurance');
    expect(Object.keys(published.body.paths).filter((path) => path.includes('advance-clock'))).toEqual([]);
    expect(JSON.stringify(published.body).includes('x-sandbox-only')).toBe(false);
    expect(published.body.components.schemas).not.toHaveProperty('SandboxClock');
    expect(published.body.tags.map((tag: { name: string }) => tag.name)).not.toContain('Sandbox');
    const sandbox = await request(world.app).get(`${API}/openapi.json`);
    expect(sandbox.body.paths).toHaveProperty(['/v1/rental-insurances/{id}/advance-clock']);
  });
});
