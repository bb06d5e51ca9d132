/**
 * The API quota held across hosts (issue 24 item 4): two service apps, standing for two hosts,
 * count one credential's requests in one Redis (RATE_LIMIT_REDIS_URL), so the credential gets the
 * quota once, not once per host, and an agency its own quota once (issue 34 item 6). Redis unreachable: each host counts alone, and nothing is refused
 * for it.
 */
import { closeQuotaStores } from '../../src/http/quota-store';
import { expectErrorBody } from '../support/error-body';
import { asPartner } from '../support/partner-api';
import { startRedis, type RedisServer } from '../../scripts/topology/redis-server';
import { useTestApp } from '../support/test-app';

const t = useTestApp({});
let redis: RedisServer;

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  await closeQuotaStores();
  await redis.stop();
});

const quota = () => ({ RATE_LIMIT_REQUESTS: '10', RATE_LIMIT_WINDOW_SECONDS: '60', RATE_LIMIT_REDIS_URL: redis.url });

describe('When one credential calls two hosts that share the quota store', () => {
  test('then it gets the quota once across both: the 11th request is refused on either host, with the headers', async () => {
    const [hostA, hostB] = [await t.anotherApp(quota()), await t.anotherApp(quota())];
    const agency = await t.newAgency();
    const [onA, onB] = [asPartner(hostA, agency), asPartner(hostB, agency)];
    const remaining: string[] = [];
    for (let call = 0; call < 10; call += 1) {
      const answer = await (call % 2 === 0 ? onA : onB).list();
      expect(answer.status).toBe(200);
      remaining.push(answer.headers['ratelimit']!.split(';')[1]!);
    }
    expect(remaining).toEqual(['r=9', 'r=8', 'r=7', 'r=6', 'r=5', 'r=4', 'r=3', 'r=2', 'r=1', 'r=0']);
    expectErrorBody(await onA.list(), 429, 'rate_limited');
    expectErrorBody(await onB.list(), 429, 'rate_limited');
    // Another credential has a quota of its own.
    expect((await asPartner(hostB, await t.newAgency()).list()).status).toBe(200);
  });

  test('then two credentials of one agency on the two hosts get the agency quota once across both', async () => {
    const agencyQuota = { ...quota(), RATE_LIMIT_AGENCY_REQUESTS: '6' };
    const [hostA, hostB] = [await t.anotherApp(agencyQuota), await t.anotherApp(agencyQuota)];
    const first = await t.newAgency();
    const second = await t.newAgency({ companyId: first.companyId });
    const [onA, onB] = [asPartner(hostA, first), asPartner(hostB, second)];
    for (let call = 0; call < 6; call += 1) expect((await (call % 2 === 0 ? onA : onB).list()).status).toBe(200);
    const refused = await onB.list();
    expectErrorBody(refused, 429, 'rate_limited');
    expect(refused.headers['ratelimit']).toMatch(/^default;r=\d+;t=\d+, agency;r=0;t=\d+$/);
    expectErrorBody(await onA.list(), 429, 'rate_limited');
  });

  test('then with Redis down each host counts alone (nothing refused for the outage), and the count is shared again once it is back', async () => {
    const [hostA, hostB] = [await t.anotherApp(quota()), await t.anotherApp(quota())];
    await redis.stop();
    try {
      const agency = await t.newAgency();
      const [onA, onB] = [asPartner(hostA, agency), asPartner(hostB, agency)];
      for (let call = 0; call < 10; call += 1) expect((await onA.list()).status).toBe(200);
      expectErrorBody(await onA.list(), 429, 'rate_limited');
      // Host B's own counter of this credential is untouched.
      expect((await onB.list()).status).toBe(200);
    } finally {
      await redis.start();
    }
    // The client reconnects within about a second (retryStrategy: at most 1 s apart).
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const fresh = await t.newAgency();
    const [freshA, freshB] = [asPartner(hostA, fresh), asPartner(hostB, fresh)];
    expect((await freshA.list()).headers['ratelimit']).toMatch(/^default;r=9;/);
    expect((await freshB.list()).headers['ratelimit']).toMatch(/^default;r=8;/);
  });
});
