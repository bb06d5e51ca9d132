/**
 * Issue 34 item 6: an agency's quota bounds an agency. Each credential keeps its quota, and all the
 * credentials of one agency together have one more (RATE_LIMIT_AGENCY_REQUESTS), announced as the
 * `agency` member of RateLimit-Policy and RateLimit; minting credentials never buys more requests,
 * nor more name searches at once (RATE_LIMIT_AGENCY_SEARCH_CONCURRENCY). Another agency is not
 * affected.
 */
import { expectErrorBody } from '../support/error-body';
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const t = useTestApp({ RATE_LIMIT_REQUESTS: '10', RATE_LIMIT_WINDOW_SECONDS: '60', RATE_LIMIT_AGENCY_REQUESTS: '15', RATE_LIMIT_SEARCH_COST: '1' });

describe('When three credentials of one agency call the API', () => {
  test('then every answer shows both quotas, the agency’s spends for all of them, and beyond it each credential is refused with 429', async () => {
    const first = await t.newAgency();
    const others = [await t.newAgency({ companyId: first.companyId }), await t.newAgency({ companyId: first.companyId })];
    const callers = [first, ...others].map((credential) => asPartner(t, credential));
    const answers = [];
    for (let call = 0; call < 15; call += 1) answers.push(await callers[call % 3]!.list());
    expect(answers.map((answer) => answer.status)).toEqual(Array(15).fill(200));
    expect(answers[0]!.headers['ratelimit-policy']).toBe('default;q=10;w=60, agency;q=15;w=60');
    expect(answers[0]!.headers['ratelimit']).toMatch(/^default;r=9;t=\d+, agency;r=14;t=\d+$/);
    expect(answers[14]!.headers['ratelimit']).toMatch(/^default;r=5;t=\d+, agency;r=0;t=\d+$/);

    for (const caller of callers) {
      const refused = await caller.list();
      expectErrorBody(refused, 429, 'rate_limited');
      expect(refused.body.message).toMatch(/agency/);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.headers['ratelimit']).toMatch(/, agency;r=0;t=\d+$/);
    }
    // Another agency has its own.
    expect((await asPartner(t, await t.newAgency()).list()).status).toBe(200);
  });
});

describe('When the credentials of one agency run name searches at once', () => {
  test('then beyond the agency’s share a search is 429, whichever credential sends it, and searches are admitted again once those end', async () => {
    const world = await t.anotherApp({ RATE_LIMIT_AGENCY_SEARCH_CONCURRENCY: '2', RATE_LIMIT_SEARCH_CONCURRENCY: '2' });
    const first = await t.newAgency();
    const second = await t.newAgency({ companyId: first.companyId });
    const [one, two] = [asPartner(world, first), asPartner(world, second)];
    // Tokens known to the process before the table is locked (a token check reads its own table anyway).
    expect([(await one.list()).status, (await two.list()).status]).toEqual([200, 200]);
    // The test's own connection locks the guarantees: the searches are admitted, then wait for it.
    let release!: () => void;
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = t.db.$transaction(
      async (tx) => {
        await tx.$executeRaw`LOCK TABLE rental_insurances IN ACCESS EXCLUSIVE MODE`;
        locked();
        await new Promise<void>((resolve) => (release = resolve));
      },
      { timeout: 60_000, maxWait: 10_000 },
    );
    await isLocked;
    const running = [
      one.list({ tenantName: 'maria' }).then((answer) => answer.status),
      one.list({ tenantName: 'jose' }).then((answer) => answer.status),
    ];
    let refused;
    try {
      // Until both are admitted (their slots taken), a third may still be admitted: ask until refused.
      const third = async () =>
        two
          .list({ tenantName: 'ana' })
          .timeout(2_000)
          .catch(() => undefined);
      refused = await waitFor(third, (answer) => answer?.status === 429, { withinMs: 20_000, everyMs: 100 });
    } finally {
      release();
      await holder;
    }
    expectErrorBody(refused!, 429, 'rate_limited');
    expect(refused!.body.message).toMatch(/agency/);
    expect(refused!.headers['retry-after']).toBe('1');
    expect(await Promise.all(running)).toEqual([200, 200]);
    expect((await two.list({ tenantName: 'ana' })).status).toBe(200);
  });
});
