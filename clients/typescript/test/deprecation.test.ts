/**
 * Deprecation and Sunset reach the caller. No operation of the service is deprecated yet, so the
 * fault proxy adds the headers, as the document declares them, to the real service's answers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PartnerApiError, type DeprecationNotice } from '../src/index.js';
import { newGuarantee, startHarness, type Harness } from './harness.js';

let h: Harness;
before(async () => {
  h = await startHarness('client-deprecation');
});
after(() => h?.close());

const CHANGELOG = 'https://rentalguarantee.example/partners/changelog';
const DEPRECATED = {
  Deprecation: '@1798761600',
  Sunset: 'Sat, 01 Jul 2028 00:00:00 GMT',
  Link: `<${CHANGELOG}#v1-balance>; rel="deprecation", <${CHANGELOG}>; rel="sunset"; type="text/html", <https://example.com/other>; rel="help"`,
};
const BALANCE = '/rental-guarantee/v1/financial/balance';

describe('Deprecation and Sunset', () => {
  test('an answer that carries them is handed to onDeprecation, parsed; the call still answers', async () => {
    const notices: DeprecationNotice[] = [];
    const client = h.client({ onDeprecation: (notice) => notices.push(notice) });
    await client.financial.balance();
    assert.equal(notices.length, 0, 'answers without the headers say nothing');
    h.proxy.inject({ method: 'GET', path: BALANCE, action: { addHeaders: DEPRECATED } });
    const result = await client.financial.balance({ correlationId: 'deprecated-balance' });
    assert.equal(result.status, 200);
    assert.equal(typeof result.data.balance, 'number');
    assert.equal(notices.length, 1);
    const [notice] = notices;
    assert.deepEqual(
      { ...notice, deprecatedAt: notice!.deprecatedAt?.toISOString(), sunsetAt: notice!.sunsetAt?.toISOString() },
      {
        method: 'GET',
        path: BALANCE,
        status: 200,
        deprecatedAt: '2027-01-01T00:00:00.000Z',
        sunsetAt: '2028-07-01T00:00:00.000Z',
        links: [`${CHANGELOG}#v1-balance`, CHANGELOG],
        headers: { deprecation: DEPRECATED.Deprecation, sunset: DEPRECATED.Sunset },
        correlationId: 'deprecated-balance',
      },
    );
  });

  test('an error answer of a deprecated operation is reported too, and the error is still thrown', async () => {
    const notices: DeprecationNotice[] = [];
    const client = h.client({ onDeprecation: (notice) => notices.push(notice) });
    h.proxy.inject({ method: 'GET', path: '/rental-guarantee/v1/rental-insurances/987654321$', action: { addHeaders: DEPRECATED } });
    const error = await client.rentalInsurances.get(987654321).catch((caught: unknown) => caught);
    assert.ok(error instanceof PartnerApiError && error.status === 404 && error.code === 'not_found', String(error));
    assert.deepEqual(
      notices.map((notice) => [notice.status, notice.path]),
      [[404, '/rental-guarantee/v1/rental-insurances/987654321']],
    );
  });

  test('a retried write reports the final answer once, not the attempt that was retried', async () => {
    const notices: DeprecationNotice[] = [];
    const client = h.client({ onDeprecation: (notice) => notices.push(notice) });
    const create = '/rental-guarantee/v1/rental-insurances$';
    h.proxy.inject({
      method: 'POST',
      path: create,
      action: {
        respond: {
          status: 503,
          headers: { ...DEPRECATED, 'Retry-After': '0' },
          body: { code: 'service_unavailable', message: 'Busy.', timestamp: new Date().toISOString() },
        },
      },
    });
    h.proxy.inject({ method: 'POST', path: create, action: { addHeaders: DEPRECATED } });
    const created = await client.rentalInsurances.create(newGuarantee());
    assert.equal(created.attempts, 2);
    assert.deepEqual(
      notices.map((notice) => [notice.method, notice.status]),
      [['POST', 201]],
    );
  });

  test('a handler that throws does not fail the call', async () => {
    const client = h.client({
      onDeprecation: () => {
        throw new Error('alerting is down');
      },
    });
    h.proxy.inject({ method: 'GET', path: BALANCE, action: { addHeaders: DEPRECATED } });
    assert.equal((await client.financial.balance()).status, 200);
  });

  test('without onDeprecation the client warns on the console once per operation', async () => {
    const client = h.client();
    const { data } = await client.rentalInsurances.create(newGuarantee());
    const { data: other } = await client.rentalInsurances.create(newGuarantee());
    const warnings: string[] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => void warnings.push(args.join(' '));
    try {
      h.proxy.inject({ method: 'GET', path: '/rental-guarantee/v1/rental-insurances/', times: 2, action: { addHeaders: DEPRECATED } });
      await client.rentalInsurances.get(data.id);
      await client.rentalInsurances.get(other.id);
    } finally {
      console.warn = warn;
    }
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(
      warnings[0]!,
      /GET \/rental-guarantee\/v1\/rental-insurances\/\{id\} is deprecated; it stops answering on 2028-07-01T00:00:00\.000Z/,
    );
    assert.ok(warnings[0]!.includes(`${CHANGELOG}#v1-balance`));
  });
});
