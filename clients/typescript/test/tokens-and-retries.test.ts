/**
 * The client against the real service: token reuse and single flight, and which answers are
 * retried (network errors, 409 idempotency_key_in_use, 429/503 after Retry-After in seconds or as
 * an HTTP-date, 5xx of writes with a key) and which never are (4xx, a Retry-After above the
 * client's maximum, 5xx or a lost answer of a write without a key).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { freePort } from '../../../scripts/support/sandbox-service.mjs';
import { createPartnerClient, PartnerApiError, PartnerNetworkError } from '../src/index.js';
import { header, newGuarantee, startHarness, type Harness } from './harness.js';

let h: Harness;
before(async () => {
  h = await startHarness('client-retries');
});
after(() => h?.close());

const tokenRequests = () => h.proxy.requestsTo('/auth/oauth2/token').length;
const sentWith = (correlationId: string) => h.proxy.requests.filter((request) => header(request, 'x-correlation-id') === correlationId);
const problem = (code: string) => ({ code, message: code, timestamp: new Date().toISOString() });

describe('tokens', () => {
  test('concurrent callers share one token request, and later calls reuse the token', async () => {
    const client = h.client();
    const before = tokenRequests();
    const results = await Promise.all(Array.from({ length: 8 }, () => client.financial.balance()));
    assert.ok(results.every((result) => result.status === 200));
    await client.rentalInsurances.list();
    assert.equal(tokenRequests() - before, 1);
  });

  test('the token is renewed shortly before it expires, with one request for every waiting caller', async () => {
    let offset = 0;
    const client = h.client({ now: () => Date.now() + offset, refreshMarginSeconds: 60 });
    const before = tokenRequests();
    await client.financial.balance();
    offset = 830_000; // 70 s before the 900 s expiry: still reused
    await client.financial.balance();
    assert.equal(tokenRequests() - before, 1);
    offset = 850_000; // 50 s before expiry: inside the margin
    await Promise.all(Array.from({ length: 5 }, () => client.financial.balance()));
    assert.equal(tokenRequests() - before, 2);
  });

  test('a token the API refuses (401) is not retried, and the next call gets a new token', async () => {
    const client = h.client();
    await client.financial.balance();
    const before = tokenRequests();
    h.proxy.inject({
      method: 'GET',
      path: '/rental-guarantee/v1/financial/balance',
      action: {
        respond: { status: 401, body: { code: 'unauthorized', message: 'The access token is invalid.', timestamp: new Date().toISOString() } },
      },
    });
    const refused = await client.financial.balance().catch((error: unknown) => error);
    assert.ok(refused instanceof PartnerApiError && refused.status === 401 && refused.code === 'unauthorized' && refused.attempts === 1);
    await client.financial.balance();
    assert.equal(tokenRequests() - before, 1);
  });
});

describe('retries', () => {
  test('503 with Retry-After: the read waits at least that long, then succeeds with the same correlation id', async () => {
    const client = h.client();
    await client.financial.balance();
    h.proxy.inject({
      method: 'GET',
      path: '/rental-guarantee/v1/financial/balance',
      action: {
        respond: {
          status: 503,
          headers: { 'Retry-After': '1' },
          body: { code: 'service_unavailable', message: 'Busy.', timestamp: new Date().toISOString() },
        },
      },
    });
    const start = Date.now();
    const result = await client.financial.balance({ correlationId: 'test-503-retry' });
    assert.ok(Date.now() - start >= 1000, 'waited for Retry-After');
    assert.equal(result.attempts, 2);
    const seen = h.proxy.requests.filter((request) => header(request, 'x-correlation-id') === 'test-503-retry');
    assert.deepEqual(
      seen.map((request) => request.outcome),
      [503, 200],
    );
  });

  for (const [label, status, code] of [
    ['429', 429, 'rate_limited'],
    ['409 idempotency_key_in_use', 409, 'idempotency_key_in_use'],
    ['500 (the write carries a key)', 500, 'internal_error'],
  ] as const) {
    test(`${label} on a create: retried with the same Idempotency-Key, executed once`, async () => {
      const client = h.client();
      const body = newGuarantee();
      h.proxy.inject({
        method: 'POST',
        path: '/rental-guarantee/v1/rental-insurances$',
        action: { respond: { status, headers: { 'Retry-After': '1' }, body: { code, message: label, timestamp: new Date().toISOString() } } },
      });
      const created = await client.rentalInsurances.create(body);
      assert.equal(created.status, 201);
      assert.equal(created.replayed, false);
      assert.equal(created.attempts, 2);
      const posts = h.proxy
        .requestsTo('/rental-guarantee/v1/rental-insurances', 'POST')
        .filter((request) => request.body.includes(body.property.externalId!));
      assert.deepEqual(
        posts.map((request) => request.outcome),
        [status, 201],
      );
      assert.equal(new Set(posts.map((request) => header(request, 'idempotency-key'))).size, 1);
      const listed = await client.rentalInsurances.list({ propertyExternalId: body.property.externalId! });
      assert.equal(listed.data.page.totalElements, 1);
    });
  }

  test('429 with Retry-After: the retry comes no sooner than Retry-After (the backoff alone is at most 200 ms here)', async () => {
    const client = h.client();
    await client.financial.balance();
    h.proxy.inject({
      method: 'GET',
      path: '/rental-guarantee/v1/financial/balance',
      action: { respond: { status: 429, headers: { 'Retry-After': '1' }, body: problem('rate_limited') } },
    });
    const result = await client.financial.balance({ correlationId: 'test-429-wait' });
    assert.equal(result.status, 200);
    assert.equal(result.attempts, 2);
    const [limited, retried] = sentWith('test-429-wait');
    assert.deepEqual([limited?.outcome, retried?.outcome], [429, 200]);
    assert.ok(retried!.receivedAt - limited!.receivedAt >= 1000, `retried after ${retried!.receivedAt - limited!.receivedAt} ms`);
  });

  test('Retry-After as an HTTP-date: the retry waits until that date', async () => {
    const client = h.client();
    await client.financial.balance();
    // A whole second (HTTP-dates have no fraction) at least 1.5 s ahead: far above the test backoff.
    const retryAt = Math.ceil((Date.now() + 1500) / 1000) * 1000;
    const retryAfter = new Date(retryAt).toUTCString();
    h.proxy.inject({
      method: 'GET',
      path: '/rental-guarantee/v1/financial/balance',
      action: { respond: { status: 503, headers: { 'Retry-After': retryAfter }, body: problem('service_unavailable') } },
    });
    const result = await client.financial.balance({ correlationId: 'test-retry-after-date' });
    assert.equal(result.attempts, 2);
    const [unavailable, retried] = sentWith('test-retry-after-date');
    assert.deepEqual([unavailable?.outcome, retried?.outcome], [503, 200]);
    // Timers may fire a few ms before the wall clock reaches the date; the wait itself is ~1.5-2.5 s.
    assert.ok(retried!.receivedAt >= retryAt - 10, `retried ${retryAt - retried!.receivedAt} ms before ${retryAfter}`);
  });

  for (const [form, retryAfter] of [
    ['in seconds', () => '3600'],
    ['as an HTTP-date', () => new Date(Date.now() + 3_600_000).toUTCString()],
  ] as const) {
    test(`a Retry-After ${form} above maxRetryAfterMs is not waited for: the 429 surfaces at once with its Retry-After`, async () => {
      const client = h.client({ retry: { maxRetryAfterMs: 2_000 } });
      await client.financial.balance();
      const correlationId = `test-retry-after-too-long-${form.replace(/ /g, '-')}`;
      h.proxy.inject({
        method: 'GET',
        path: '/rental-guarantee/v1/financial/balance',
        action: { respond: { status: 429, headers: { 'Retry-After': retryAfter() }, body: problem('rate_limited') } },
      });
      const start = Date.now();
      const error = await client.financial.balance({ correlationId }).catch((caught: unknown) => caught);
      assert.ok(Date.now() - start < 1000, 'did not wait');
      assert.ok(error instanceof PartnerApiError, String(error));
      assert.deepEqual([error.status, error.code, error.attempts], [429, 'rate_limited', 1]);
      // An HTTP-date has whole seconds: up to one second less than the hour remains.
      assert.ok(error.retryAfterSeconds! >= 3598 && error.retryAfterSeconds! <= 3600, String(error.retryAfterSeconds));
      assert.deepEqual(
        sentWith(correlationId).map((request) => request.outcome),
        [429],
      );
    });
  }

  for (const status of [500, 502] as const) {
    test(`${status} on a write sent without an Idempotency-Key (through client.api) is not retried`, async () => {
      const client = h.client();
      const correlationId = `test-${status}-keyless-write`;
      h.proxy.inject({
        method: 'POST',
        path: '/rental-guarantee/v1/rental-insurances$',
        action: { respond: { status, body: problem('internal_error') } },
      });
      // The wrapped writes always send a key; a caller of the raw generated client may leave it out.
      const headers = { 'X-Correlation-Id': correlationId } as { 'X-Correlation-Id': string; 'Idempotency-Key': string };
      const { response, error } = await client.api.POST('/v1/rental-insurances', { params: { header: headers }, body: newGuarantee() });
      assert.equal(response.status, status);
      assert.equal((error as { code?: string }).code, 'internal_error');
      const sent = sentWith(correlationId);
      assert.deepEqual(
        sent.map((request) => request.outcome),
        [status],
      );
      assert.equal(header(sent[0]!, 'idempotency-key'), undefined);
    });
  }

  test('a write whose answer is lost, sent without an Idempotency-Key, is not retried (it may have been applied)', async () => {
    const client = h.client();
    h.proxy.inject({ method: 'POST', path: '/rental-guarantee/v1/rental-insurances$', action: { dropAnswer: true } });
    const headers = { 'X-Correlation-Id': 'test-keyless-dropped' } as { 'X-Correlation-Id': string; 'Idempotency-Key': string };
    const error = await client.api
      .POST('/v1/rental-insurances', { params: { header: headers }, body: newGuarantee() })
      .catch((caught: unknown) => caught);
    assert.ok(error instanceof PartnerNetworkError, String(error));
    assert.equal(error.attempts, 1);
    assert.deepEqual(
      sentWith('test-keyless-dropped').map((request) => request.outcome),
      ['dropped'],
    );
  });

  test('a 4xx is never retried, and the error carries code, details and correlation id', async () => {
    const client = h.client();
    const invalid = newGuarantee({ tenant: { cpfCnpj: '529.982.247-24', name: 'Check Digits Wrong' } });
    const error = await client.rentalInsurances.create(invalid, { correlationId: 'test-400-no-retry' }).catch((caught: unknown) => caught);
    assert.ok(error instanceof PartnerApiError);
    assert.equal(error.status, 400);
    assert.equal(error.code, 'validation_failed');
    assert.ok(
      error.details.some((detail) => detail.startsWith('tenant.cpfCnpj')),
      error.details.join('; '),
    );
    assert.equal(error.correlationId, 'test-400-no-retry');
    assert.equal(error.attempts, 1);
    assert.equal(h.proxy.requests.filter((request) => header(request, 'x-correlation-id') === 'test-400-no-retry').length, 1);

    const missing = await client.rentalInsurances.get(987654321).catch((caught: unknown) => caught);
    assert.ok(missing instanceof PartnerApiError && missing.status === 404 && missing.code === 'not_found' && missing.attempts === 1);
  });

  test('the client gives up after maxAttempts and reports the last answer', async () => {
    const client = h.client({ retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 20 } });
    await client.financial.balance();
    h.proxy.inject({
      method: 'GET',
      path: '/rental-guarantee/v1/financial/balance',
      times: 3,
      action: { respond: { status: 503, body: { code: 'service_unavailable', message: 'Down.', timestamp: new Date().toISOString() } } },
    });
    const error = await client.financial.balance().catch((caught: unknown) => caught);
    assert.ok(error instanceof PartnerApiError && error.status === 503 && error.code === 'service_unavailable');
    assert.equal(error.attempts, 3);
  });

  test('no answer at all (connection refused): retried, then a PartnerNetworkError that does not reveal the secret', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const client = createPartnerClient({
      baseUrl: `${closed}/rental-guarantee`,
      authUrl: `${closed}/auth`,
      clientId: h.service.clientId,
      clientSecret: h.service.clientSecret,
      retry: { maxAttempts: 2, baseDelayMs: 10 },
    });
    const error = await client.financial.balance().catch((caught: unknown) => caught);
    assert.ok(error instanceof PartnerNetworkError, String(error));
    assert.equal(error.attempts, 2);
    assert.ok(!`${error.message} ${String(error.cause)}`.includes(h.service.clientSecret));
  });
});
