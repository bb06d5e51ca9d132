/**
 * Brute-force protection of POST /auth/oauth2/token: failed client authentications lock out their
 * source address and their client ID for TOKEN_LOCKOUT_SECONDS, with 429 and Retry-After; a
 * refused request never reaches scrypt; the lockout ends by itself. Windows are shortened here so
 * that the release is seen within seconds. Addresses come from a trusted proxy's X-Forwarded-For.
 */
import * as secrets from '../../src/auth/opaque-secrets';
import { useTestApp } from '../support/test-app';
import { expectOAuthError, newCredential, tokenRequestFrom } from './token-harness';

const LOCKOUT_SECONDS = 2;
const ANSWER_DELAY_MS = 300;
const SETTINGS = {
  TOKEN_LOCKOUT_ANSWER_DELAY_MS: String(ANSWER_DELAY_MS),
  TRUST_PROXY: 'loopback',
  TOKEN_FAILURES_PER_ADDRESS: '3',
  TOKEN_FAILURES_PER_CLIENT: '4',
  TOKEN_FAILURE_WINDOW_SECONDS: '60',
  TOKEN_LOCKOUT_SECONDS: String(LOCKOUT_SECONDS),
};

const t = useTestApp(SETTINGS);

/** Counts scrypt verifications (the model calls verifySecret through the module's exports). */
const verifications = jest.spyOn(secrets, 'verifySecret');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function expectLockout(response: { status: number; headers: Record<string, string>; body: unknown }, scope: RegExp): void {
  expect(response.status).toBe(429);
  expect(response.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
  expect(Number(response.headers['retry-after'])).toBeLessThanOrEqual(LOCKOUT_SECONDS);
  expect(response.headers['cache-control']).toBe('no-store');
  expect(response.headers['pragma']).toBe('no-cache');
  expect(response.headers['x-correlation-id']).toEqual(expect.any(String));
  expect(response.headers['www-authenticate']).toBeUndefined();
  expectOAuthError(response.body, 'temporarily_unavailable');
  expect((response.body as { error_description: string }).error_description).toMatch(scope);
}

describe('When one address keeps failing client authentication', () => {
  test('then after 3 failures it is answered 429 without any verification, even with the right secret, until the lockout ends', async () => {
    const credential = await newCredential(t.db);
    const address = '198.51.100.1';
    for (let attempt = 1; attempt <= 3; attempt++) {
      const failed = await tokenRequestFrom(t.app, address, credential.clientId, `sbx_cs_wrong${attempt}`);
      expect(failed.status).toBe(401);
      expectOAuthError(failed.body, 'invalid_client');
    }
    verifications.mockClear();
    const started = performance.now();
    const locked = await tokenRequestFrom(t.app, address, credential.clientId, credential.clientSecret);
    expectLockout(locked, /from this address/);
    // Held before it is answered, so that a flood's connections each send little.
    expect(performance.now() - started).toBeGreaterThanOrEqual(ANSWER_DELAY_MS - 20);
    const lockedAgain = await tokenRequestFrom(t.app, address, 'sbx_ci_someoneelse', 'sbx_cs_whatever');
    expect(lockedAgain.status).toBe(429);
    expect(verifications).not.toHaveBeenCalled();

    // Another address is not concerned.
    expect((await tokenRequestFrom(t.app, '198.51.100.2', credential.clientId, credential.clientSecret)).status).toBe(200);

    await sleep(Number(locked.headers['retry-after']) * 1000 + 100);
    const released = await tokenRequestFrom(t.app, address, credential.clientId, credential.clientSecret);
    expect(released.status).toBe(200);
    expect(released.body.token_type).toBe('Bearer');
  });

  test('then unknown client IDs count like wrong secrets and cost the same single verification', async () => {
    const credential = await newCredential(t.db);
    const address = '198.51.100.3';
    verifications.mockClear();
    const unknown = await tokenRequestFrom(t.app, address, 'sbx_ci_doesnotexist', 'sbx_cs_guess');
    expect(unknown.status).toBe(401);
    expectOAuthError(unknown.body, 'invalid_client');
    expect(verifications).toHaveBeenCalledTimes(1);
    verifications.mockClear();
    const wrong = await tokenRequestFrom(t.app, address, credential.clientId, 'sbx_cs_guess');
    expect(wrong.status).toBe(401);
    expect(verifications).toHaveBeenCalledTimes(1);

    expect((await tokenRequestFrom(t.app, address, 'sbx_ci_alsounknown', 'sbx_cs_guess')).status).toBe(401);
    expectLockout(await tokenRequestFrom(t.app, address, credential.clientId, credential.clientSecret), /from this address/);
  });

  test('then a revoked credential costs one verification and answers like an unknown one', async () => {
    const credential = await newCredential(t.db);
    await t.db.credential.update({ where: { clientId: credential.clientId }, data: { revokedAt: new Date() } });
    verifications.mockClear();
    const revoked = await tokenRequestFrom(t.app, '198.51.100.4', credential.clientId, credential.clientSecret);
    expect(revoked.status).toBe(401);
    expectOAuthError(revoked.body, 'invalid_client');
    expect(verifications).toHaveBeenCalledTimes(1);
  });
});

describe('When a client ID keeps failing from many addresses', () => {
  test('then it is locked out for every address except those it authenticated from, until the lockout ends', async () => {
    const credential = await newCredential(t.db);
    const known = '203.0.113.10';
    expect((await tokenRequestFrom(t.app, known, credential.clientId, credential.clientSecret)).status).toBe(200);
    for (let attempt = 1; attempt <= 4; attempt++) {
      // One failure per address: no address reaches its own limit.
      expect((await tokenRequestFrom(t.app, `203.0.113.${100 + attempt}`, credential.clientId, `sbx_cs_wrong${attempt}`)).status).toBe(401);
    }
    verifications.mockClear();
    const locked = await tokenRequestFrom(t.app, '203.0.113.200', credential.clientId, credential.clientSecret);
    expectLockout(locked, /for this client ID/);
    expect(verifications).not.toHaveBeenCalled();

    // The partner's own server keeps getting tokens: an attacker cannot lock it out with its public client ID.
    const partner = await tokenRequestFrom(t.app, known, credential.clientId, credential.clientSecret);
    expect(partner.status).toBe(200);

    await sleep(Number(locked.headers['retry-after']) * 1000 + 100);
    expect((await tokenRequestFrom(t.app, '203.0.113.200', credential.clientId, credential.clientSecret)).status).toBe(200);
  });

  test('then IPv6 addresses of one /64 count as one address', async () => {
    const prefix = '2001:db8:aa:bb';
    for (let attempt = 1; attempt <= 3; attempt++) {
      expect((await tokenRequestFrom(t.app, `${prefix}::${attempt}`, `sbx_ci_v6probe${attempt}`, 'sbx_cs_guess')).status).toBe(401);
    }
    expectLockout(await tokenRequestFrom(t.app, `${prefix}:0:0:0:ffff`, 'sbx_ci_v6probe9', 'sbx_cs_guess'), /from this address/);
    expect((await tokenRequestFrom(t.app, '2001:db8:aa:cc::1', 'sbx_ci_v6probe9', 'sbx_cs_guess')).status).toBe(401);
  });
});
