/**
 * The token endpoint's failure counts and lockouts live in PostgreSQL: two apps on one database,
 * each with its own Prisma client and its own memory (as two service processes have), share them.
 */
import { randomBytes } from 'node:crypto';
import { useTestApp } from '../support/test-app';
import type { InProcessApp } from '../support/in-process-app';
import { newCredential, tokenRequestFrom } from './token-harness';

const SETTINGS = {
  TRUST_PROXY: 'loopback',
  TOKEN_FAILURES_PER_ADDRESS: '3',
  TOKEN_FAILURES_PER_CLIENT: '4',
  TOKEN_FAILURE_WINDOW_SECONDS: '60',
  TOKEN_LOCKOUT_SECONDS: '60',
  TOKEN_LOCKOUT_ANSWER_DELAY_MS: '0',
};

const first = useTestApp(SETTINGS);
let second: InProcessApp;
beforeAll(async () => {
  second = await first.anotherApp(SETTINGS);
});

describe('When two service processes share the database', () => {
  test('then failures counted by one lock the address out in the other', async () => {
    const credential = await newCredential(first.db);
    const address = '198.51.100.50';
    expect((await tokenRequestFrom(first.app, address, credential.clientId, 'sbx_cs_wrong1')).status).toBe(401);
    expect((await tokenRequestFrom(second.app, address, credential.clientId, 'sbx_cs_wrong2')).status).toBe(401);
    expect((await tokenRequestFrom(first.app, address, credential.clientId, 'sbx_cs_wrong3')).status).toBe(401);
    // The second app never saw the third failure: it reads the lockout from the database.
    const locked = await tokenRequestFrom(second.app, address, credential.clientId, credential.clientSecret);
    expect(locked.status).toBe(429);
    expect(locked.body.error).toBe('temporarily_unavailable');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(50);
    expect((await tokenRequestFrom(first.app, address, credential.clientId, credential.clientSecret)).status).toBe(429);
  });

  test("then a client ID's lockout reached through one holds in the other", async () => {
    const credential = await newCredential(first.db);
    for (let attempt = 1; attempt <= 4; attempt++) {
      const app = attempt % 2 ? second.app : first.app;
      expect((await tokenRequestFrom(app, `198.51.100.${60 + attempt}`, credential.clientId, `sbx_cs_wrong${attempt}`)).status).toBe(401);
    }
    const locked = await tokenRequestFrom(first.app, '198.51.100.70', credential.clientId, credential.clientSecret);
    expect(locked.status).toBe(429);
    expect(locked.body.error_description).toMatch(/for this client ID/);
  });

  test('then a concurrent flood split over both counts at most one failure per process beyond the limit', async () => {
    const address = '198.51.100.80';
    // A new unknown client ID per request: only the address limit applies.
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, index) =>
        tokenRequestFrom(index % 2 ? first.app : second.app, address, `sbx_ci_${randomBytes(6).toString('hex')}`, 'sbx_cs_guess'),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status !== 401 && status !== 429)).toEqual([]);
    const failures = statuses.filter((status) => status === 401).length;
    expect(failures).toBeGreaterThanOrEqual(3);
    expect(failures).toBeLessThanOrEqual(3 + 1);
    const stored = await first.db.tokenRateLimit.findUnique({ where: { key: `token_address:${address}` } });
    expect(stored?.points).toBeGreaterThanOrEqual(3);
    expect(stored!.expire!.getTime()).toBeGreaterThan(Date.now() + 50_000);
  });

  test('then rows expired for over an hour are deleted by the next process that authenticates someone', async () => {
    await first.db.tokenRateLimit.createMany({
      data: [
        { key: 'token_address:192.0.2.200', points: 1, expire: new Date(Date.now() - 2 * 3_600_000) },
        { key: 'token_address:192.0.2.201', points: 1, expire: new Date(Date.now() - 60_000) },
      ],
    });
    const third = await first.anotherApp(SETTINGS);
    expect((await tokenRequestFrom(third.app, '192.0.2.202', 'sbx_ci_nobody', 'sbx_cs_guess')).status).toBe(401);
    const keys = async () =>
      (await first.db.tokenRateLimit.findMany({ where: { key: { startsWith: 'token_address:192.0.2.20' } } })).map((row) => row.key);
    for (let wait = 0; wait < 50 && (await keys()).includes('token_address:192.0.2.200'); wait++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await keys()).sort()).toEqual(['token_address:192.0.2.201', 'token_address:192.0.2.202']);
  });
});
