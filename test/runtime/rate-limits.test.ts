/**
 * Quotas per credential with the RateLimit-Policy and RateLimit headers: every answer to an
 * authenticated request says where the credential stands, a spent quota is 429 rate_limited with
 * Retry-After, a tenant name search counts for more, a request refused for its scope counts too,
 * and one credential's quota is its own.
 */
import { RateLimits } from '../../src/http/rate-limits';
import { expectErrorBody } from '../support/error-body';
import { guaranteeBody } from '../support/factories';
import { asPartner, withAuthorization } from '../support/partner-api';
import { countGuarantees } from '../support/stored-state';
import { useTestApp } from '../support/test-app';

// The credential's quota alone (the agency's has its own file, agency-quota.test.ts).
const t = useTestApp({ RATE_LIMIT_REQUESTS: '20', RATE_LIMIT_WINDOW_SECONDS: '60', RATE_LIMIT_SEARCH_COST: '5', RATE_LIMIT_AGENCY_REQUESTS: '0' });

describe('When a credential calls the API', () => {
  test('then every answer, errors included, carries the policy and what is left of it', async () => {
    const partner = asPartner(t, await t.newAgency());
    const ok = await partner.list();
    expect(ok.status).toBe(200);
    expect(ok.headers['ratelimit-policy']).toBe('default;q=20;w=60');
    expect(ok.headers['ratelimit']).toMatch(/^default;r=19;t=\d+$/);
    const missing = await partner.get(999999999);
    expectErrorBody(missing, 404, 'not_found');
    expect(missing.headers['ratelimit']).toMatch(/^default;r=18;t=\d+$/);
    // A request refused before its credential is known carries none.
    expect((await asPartner(t, withAuthorization('Bearer sbx_at_unknown')).list()).headers['ratelimit']).toBeUndefined();
  });

  test('then a spent quota is 429 rate_limited with Retry-After and the headers, and other credentials are not affected', async () => {
    const partner = asPartner(t, await t.newAgency());
    const other = asPartner(t, await t.newAgency());
    for (let call = 0; call < 20; call += 1) expect((await partner.list()).status).toBe(200);
    const refused = await partner.list();
    expectErrorBody(refused, 429, 'rate_limited');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers['ratelimit']).toBe(`default;r=0;t=${retryAfter}`);
    expect((await other.list()).status).toBe(200);
  });

  test('then a tenant name search counts as RATE_LIMIT_SEARCH_COST requests', async () => {
    const partner = asPartner(t, await t.newAgency());
    const search = await partner.list({ tenantName: 'maria' });
    expect(search.status).toBe(200);
    expect(search.headers['ratelimit']).toMatch(/^default;r=15;t=\d+$/);
    expect((await partner.list({ tenantCpfCnpj: '52998224725' })).headers['ratelimit']).toMatch(/^default;r=14;t=\d+$/);
  });
});

describe('When a credential keeps calling an operation its token has no scope for', () => {
  test('then each 403 carries the headers and counts as one request, a name search included, until the quota is spent: 429, nothing stored', async () => {
    const agency = await t.newAgency({ scopes: ['ri:financial:read'] });
    const partner = asPartner(t, agency);
    const refused = await partner.create(guaranteeBody());
    expectErrorBody(refused, 403, 'insufficient_scope');
    expect(refused.headers['ratelimit-policy']).toBe('default;q=20;w=60');
    expect(refused.headers['ratelimit']).toMatch(/^default;r=19;t=\d+$/);
    // A search it may not run costs what a refusal costs, not the search's price.
    const search = await partner.list({ tenantName: 'maria' });
    expectErrorBody(search, 403, 'insufficient_scope');
    expect(search.headers['ratelimit']).toMatch(/^default;r=18;t=\d+$/);
    for (let call = 0; call < 18; call += 1) expect((await partner.create(guaranteeBody())).status).toBe(403);
    const limited = await partner.create(guaranteeBody());
    expectErrorBody(limited, 429, 'rate_limited');
    expect(limited.headers['ratelimit']).toBe(`default;r=0;t=${limited.headers['retry-after']}`);
    // The spent quota is the credential's: an operation within its scope is refused too.
    expectErrorBody(await partner.balance(), 429, 'rate_limited');
    expect(await countGuarantees(t, agency)).toBe(0);
  });
});

describe('When one credential runs several name searches at once', () => {
  test('then beyond its concurrency a search is 429, beyond the process capacity 503, and a finished search frees its place', () => {
    const limits = new RateLimits({ points: 0, windowSeconds: 60, searchCost: 10, searchConcurrency: 2, searchCapacity: 3 });
    const who = (id: string) => ({ credentialId: id, companyId: `agency-${id}` });
    const first = limits.admitSearch(who('a'));
    limits.admitSearch(who('a'));
    expect(() => limits.admitSearch(who('a'))).toThrow(expect.objectContaining({ status: 429, code: 'rate_limited' }));
    limits.admitSearch(who('b'));
    expect(() => limits.admitSearch(who('c'))).toThrow(expect.objectContaining({ status: 503, code: 'service_unavailable' }));
    first();
    first(); // releasing twice frees one place only
    expect(() => limits.admitSearch(who('c'))).not.toThrow();
    expect(() => limits.admitSearch(who('d'))).toThrow(expect.objectContaining({ status: 503 }));
  });
});

describe('When an agency has stored as many write responses as it may within the retention window', () => {
  test('then its next write is 429 idempotency_quota_exceeded with Retry-After and applies nothing, and a replay still answers', async () => {
    // Another process on the same database with the cap (and the default request quota).
    const capped = await t.anotherApp({ IDEMPOTENCY_RECORDS_PER_AGENCY: '2' });
    const agency = await t.newAgency();
    const partner = asPartner(capped, agency);
    const bodies = new Map<string, Record<string, unknown>>();
    const create = (key: string) => {
      if (!bodies.has(key)) bodies.set(key, guaranteeBody());
      return partner.create(bodies.get(key), { key });
    };
    const first = await create('cap-1');
    expect(first.status).toBe(201);
    expect((await create('cap-2')).status).toBe(201);
    const refused = await create('cap-3');
    expectErrorBody(refused, 429, 'idempotency_quota_exceeded');
    expect(refused.headers['retry-after']).toBe('3600');
    expect(await countGuarantees(t, agency)).toBe(2);
    expect((await create('cap-1')).headers['idempotent-replay']).toBe('true');
    // The cap is the agency's own: another agency writes as before.
    const fresh = await asPartner(capped, await t.newAgency()).create(guaranteeBody(), { key: 'cap-1' });
    expect(fresh.status).toBe(201);
  });
});
