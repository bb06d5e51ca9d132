/**
 * Issue 37: console sign-in attempts are limited per client address (every ceremony request) and
 * per person (failed sign-ins), counted in PostgreSQL so that every service process sees the same
 * counts; a refused answer is 429 with Retry-After. A response naming a challenge this service did
 * not issue (or already spent) fails like any other.
 */
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { staffActor } from '../../src/auth/audit-log';
import { invitePerson } from '../../src/people/people';
import { expectErrorBody } from '../support/error-body';
import { useTestApp } from '../support/test-app';

// TRUST_PROXY: each test speaks from an address of its own (X-Forwarded-For).
const LIMITS = {
  TRUST_PROXY: 'loopback',
  CONSOLE_SIGN_IN_ATTEMPTS_PER_ADDRESS: '6',
  CONSOLE_SIGN_IN_FAILURES_PER_PERSON: '2',
  CONSOLE_SIGN_IN_WINDOW_SECONDS: '600',
};
const world = useTestApp(LIMITS);

/** What the console's pages send: the service's host, its origin, the console's header. */
const PAGE = { Host: 'console.test', Origin: 'http://console.test', 'X-Console-Request': '1' };

const b64 = (value: string | Buffer) => Buffer.from(value).toString('base64url');

/** An assertion as a browser would send it for `passkeyId`, whose signature nothing can verify. */
function forgedAssertion(passkeyId: string, challenge: string) {
  const clientDataJSON = b64(JSON.stringify({ type: 'webauthn.get', challenge, origin: 'http://console.test', crossOrigin: false }));
  return {
    response: {
      id: passkeyId,
      rawId: passkeyId,
      type: 'public-key',
      clientExtensionResults: {},
      response: { clientDataJSON, authenticatorData: b64(randomBytes(37)), signature: b64(randomBytes(64)) },
    },
  };
}

const signIn = (app: typeof world.app, body: object, address = '203.0.113.9') =>
  request(app)
    .post('/console/api/v1/sign-in')
    .set({ ...PAGE, 'X-Forwarded-For': address })
    .send(body);

test('When a person’s sign-ins keep failing, then that person is refused with 429 from any address, in every process', async () => {
  const { person } = await invitePerson(
    world.db,
    world.config.ENVIRONMENT,
    { kind: 'director', companyId: 'agency-limits', name: 'Dora Limite', actor: staffActor('test', 'cli') },
    24,
  );
  const passkeyId = b64(randomBytes(16));
  await world.db.consolePasskey.create({ data: { id: passkeyId, personId: person.id, publicKey: randomBytes(77), name: 'Roubada' } });
  const options = await request(world.app)
    .post('/console/api/v1/sign-in/options')
    .set({ ...PAGE, 'X-Forwarded-For': '203.0.113.9' });
  expect(options.status).toBe(200);
  // A real challenge, a forged signature; then the same challenge again (spent); then an unknown one.
  expectErrorBody(await signIn(world.app, forgedAssertion(passkeyId, options.body.options.challenge)), 400, 'sign_in_failed');
  expectErrorBody(await signIn(world.app, forgedAssertion(passkeyId, options.body.options.challenge)), 400, 'sign_in_failed');
  const other = await world.anotherApp(LIMITS);
  const refused = await signIn(other.app, forgedAssertion(passkeyId, b64(randomBytes(32))), '198.51.100.99');
  expectErrorBody(refused, 429, 'rate_limited');
  expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  expect(await world.db.consoleSession.count({ where: { personId: person.id } })).toBe(0);
});

test('When one address keeps starting sign-ins, then it is refused with 429 after the limit, in every process', async () => {
  const other = await world.anotherApp(LIMITS);
  const start = (app: typeof world.app) =>
    request(app)
      .post('/console/api/v1/sign-in/options')
      .set({ ...PAGE, 'X-Forwarded-For': '192.0.2.50' });
  for (let attempt = 0; attempt < 6; attempt += 1) expect((await start(attempt % 2 === 0 ? world.app : other.app)).status).toBe(200);
  const refused = await start(other.app);
  expectErrorBody(refused, 429, 'rate_limited');
  expect(refused.headers['retry-after']).toMatch(/^\d+$/);
});

test('When a sign-in names a passkey nobody registered, then it fails as any other failure', async () => {
  const options = await request(world.app)
    .post('/console/api/v1/sign-in/options')
    .set({ ...PAGE, 'X-Forwarded-For': '198.51.100.7' });
  expectErrorBody(
    await signIn(world.app, forgedAssertion(b64(randomBytes(16)), options.body.options.challenge), '198.51.100.7'),
    400,
    'sign_in_failed',
  );
});

test('When an enrolment names an unknown invitation, then it is 400 invitation_invalid', async () => {
  const unknown = await request(world.app)
    .post('/console/api/v1/enrolment/options')
    .set({ ...PAGE, 'X-Forwarded-For': '198.51.100.8' })
    .send({ invitation: `sbx_inv_${b64(randomBytes(32))}` });
  expectErrorBody(unknown, 400, 'invitation_invalid');
});

test('When another site starts or answers a sign-in (a form, or a page of another origin), then it is 403 cross_site_refused', async () => {
  const start = () => request(world.app).post('/console/api/v1/sign-in/options').set('X-Forwarded-For', '198.51.100.20');
  const formPost = await start().set({ Host: 'console.test', Origin: 'https://evil.example' }).type('form').send('a=b');
  expect({ status: formPost.status, code: formPost.body.code }).toEqual({ status: 403, code: 'cross_site_refused' });
  const foreignPage = await start().set({ ...PAGE, Origin: 'https://evil.example' });
  expect({ status: foreignPage.status, code: foreignPage.body.code }).toEqual({ status: 403, code: 'cross_site_refused' });
  expect((await start().set(PAGE)).status).toBe(200);
});
