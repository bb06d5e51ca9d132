/**
 * Issue 37: what the console's session may not do, at the HTTP level. A session stands for its
 * person's scopes on the back office; a request without the console's header, a write from another
 * origin, a cookie of another deployment, an ended session, a person without the scope, and a
 * director reaching another agency's credential are refused with the error body and change nothing.
 */
import request from 'supertest';
import { staffActor } from '../../src/auth/audit-log';
import { reinvitePerson } from '../../src/people/people';
import { hashSessionToken } from '../../src/auth/session-store';
import { pdfBytes } from '../support/document-files';
import { expectErrorBody } from '../support/error-body';
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { asConsole, signedInPerson } from './console-sessions';

const world = useTestApp({}, { agencies: 2 });
const CREDENTIALS = '/back-office/v1/agency/credentials';

test('When a director’s console page lists and creates credentials with its session, then the back office answers as for a director token', async () => {
  const director = await signedInPerson(world, { kind: 'director', companyId: world.agency.companyId });
  const page = asConsole(world, director);
  const created = await page.post(CREDENTIALS, { displayName: 'ERP do console', scopes: ['ri:rental-insurances:read'] }, 'create-1');
  expect(created.status).toBe(201);
  expect(created.body.secret.clientSecret).toMatch(/^sbx_cs_/);
  const replay = await page.post(CREDENTIALS, { displayName: 'ERP do console', scopes: ['ri:rental-insurances:read'] }, 'create-1');
  expect(replay.headers['idempotent-replay']).toBe('true');
  expect(replay.body.secret.clientSecret).toBeNull();
  const listed = await page.get(CREDENTIALS);
  expect(listed.status).toBe(200);
  expect(listed.body._embedded.credentials.map((c: { displayName: string }) => c.displayName)).toContain('ERP do console');
  const audit = await world.db.auditLogEntry.findFirst({
    where: { action: 'credential.created', companyId: world.agency.companyId },
    orderBy: { id: 'desc' },
  });
  expect(audit).toMatchObject({
    actor: expect.stringMatching(/^director:/),
    details: expect.objectContaining({ via: 'console', actorClientId: `console:${director.personId}` }),
  });
});

test('When a session request lacks X-Console-Request, or a write comes from another origin, then it is 403 cross_site_refused and nothing is created', async () => {
  const director = await signedInPerson(world, { kind: 'director', companyId: world.agency.companyId });
  const before = await world.db.credential.count({ where: { companyId: world.agency.companyId } });
  const cookie = { Cookie: director.headers['Cookie']! };
  const body = { displayName: 'Forjada', scopes: ['ri:rental-insurances:read'] };
  expectErrorBody(await request(world.app).get(CREDENTIALS).set(cookie), 403, 'cross_site_refused');
  expectErrorBody(await request(world.app).post(CREDENTIALS).set(cookie).set('Idempotency-Key', 'x1').send(body), 403, 'cross_site_refused');
  const withHeader = { ...cookie, 'X-Console-Request': '1' };
  expectErrorBody(await request(world.app).post(CREDENTIALS).set(withHeader).set('Idempotency-Key', 'x2').send(body), 403, 'cross_site_refused');
  expectErrorBody(
    await request(world.app)
      .post(CREDENTIALS)
      .set({ ...withHeader, Origin: 'https://evil.example' })
      .set('Idempotency-Key', 'x3')
      .send(body),
    403,
    'cross_site_refused',
  );
  expectErrorBody(
    await request(world.app)
      .get(CREDENTIALS)
      .set({ ...withHeader, 'Sec-Fetch-Site': 'cross-site' }),
    403,
    'cross_site_refused',
  );
  expect(await world.db.credential.count({ where: { companyId: world.agency.companyId } })).toBe(before);
});

test('When the cookie is another deployment’s, unknown, idle too long or past its 12 hours, then it is 401 and the page must sign in again', async () => {
  const director = await signedInPerson(world, { kind: 'director', companyId: world.agency.companyId });
  const page = asConsole(world, {
    ...director,
    headers: { ...director.headers, Cookie: '__Host-rg-console=prd_ses_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
  });
  const other = await page.get(CREDENTIALS);
  expectErrorBody(other, 401, 'unauthorized');
  expect(other.body.message).toContain('production');
  const unknown = asConsole(world, {
    ...director,
    headers: { ...director.headers, Cookie: '__Host-rg-console=sbx_ses_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
  });
  expectErrorBody(await unknown.get(CREDENTIALS), 401, 'unauthorized');

  const tokenHash = hashSessionToken(director.token);
  const live = asConsole(world, director);
  expect((await live.get(CREDENTIALS)).status).toBe(200);
  await world.db.consoleSession.update({ where: { tokenHash }, data: { lastSeenAt: new Date(Date.now() - 31 * 60_000) } });
  expectErrorBody(await live.get(CREDENTIALS), 401, 'unauthorized');
  await world.db.consoleSession.update({ where: { tokenHash }, data: { lastSeenAt: new Date(), expiresAt: new Date(Date.now() - 1000) } });
  expectErrorBody(await live.get(CREDENTIALS), 401, 'unauthorized');
});

test('When staff re-invite a director who lost their passkey, then the director’s sessions end at once', async () => {
  const director = await signedInPerson(world, { kind: 'director', companyId: world.agency.companyId });
  const page = asConsole(world, director);
  expect((await page.get('/console/api/v1/session')).status).toBe(200);
  await reinvitePerson(world.db, world.config.ENVIRONMENT, director.personId, staffActor('Ana Admin', 'cli'), 24);
  expectErrorBody(await page.get(CREDENTIALS), 401, 'unauthorized');
  const audit = await world.db.auditLogEntry.findFirst({ where: { action: 'console.person_reinvited' }, orderBy: { id: 'desc' } });
  expect(audit?.details).toMatchObject({ personId: director.personId, sessionsEnded: 1 });
});

test('When a session lacks the operation’s scope, or reaches another agency’s credential, then it is refused and nothing changes', async () => {
  const ledgerOnly = asConsole(world, await signedInPerson(world, { kind: 'staff', scopes: ['ops:ledger:write'] }));
  expectErrorBody(await ledgerOnly.get('/back-office/v1/review-queue'), 403, 'insufficient_scope');
  const director = asConsole(world, await signedInPerson(world, { kind: 'director', companyId: world.agency.companyId }));
  expectErrorBody(await director.get('/back-office/v1/review-queue'), 403, 'insufficient_scope');
  const foreign = world.agencies[1]!;
  expectErrorBody(await director.post(`${CREDENTIALS}/${foreign.credentialId}/revoke`), 404, 'not_found');
  expect((await world.db.credential.findUniqueOrThrow({ where: { id: foreign.credentialId } })).revokedAt).toBeNull();
  const refusal = await world.db.auditLogEntry.findFirst({ where: { action: 'credential.access_refused', credentialId: foreign.credentialId } });
  expect(refusal).toMatchObject({
    companyId: foreign.companyId,
    actor: expect.stringMatching(/^director:/),
    details: expect.objectContaining({ via: 'console' }),
  });
});

test('When a bearer token calls a console session operation, then it is 401: the console’s own operations take only the session', async () => {
  const page = { 'X-Console-Request': '1' };
  expectErrorBody(await request(world.app).get('/console/api/v1/session').set(page).set(world.agency.auth), 401, 'unauthorized');
  expectErrorBody(await request(world.app).get('/console/api/v1/passkeys').set(page), 401, 'unauthorized');
});

test('When a person signs out, then the session ends and the cookie is cleared', async () => {
  const director = await signedInPerson(world, { kind: 'director', companyId: world.agency.companyId });
  const page = asConsole(world, director);
  const out = await page.post('/console/api/v1/sign-out');
  expect(out.status).toBe(204);
  expect(out.headers['set-cookie']?.[0]).toMatch(/^__Host-rg-console=; Path=\/; HttpOnly; Secure; SameSite=Strict; Max-Age=0$/);
  expectErrorBody(await page.get('/console/api/v1/session'), 401, 'unauthorized');
});

test('When a session calls attachStaffDocuments, the one back-office operation without consoleSession, then the cookie is not read: 401 and nothing is attached', async () => {
  const reviewer = await signedInPerson(world, { kind: 'staff', scopes: ['ops:guarantees:review'] });
  const partner = asPartner(world);
  const guarantee = await partner.newGuarantee();
  const before = (await partner.historyEntries(guarantee.id)).length;
  const attached = await request(world.app)
    .post(`/back-office/v1/rental-insurances/${guarantee.id}/documents`)
    .set({ ...reviewer.headers, Host: 'console.test', Origin: 'http://console.test', 'Idempotency-Key': 'attach-1' })
    .field('comment', 'Lista anexa.')
    .attach('file', pdfBytes(), { filename: 'lista.pdf', contentType: 'application/pdf' });
  expectErrorBody(attached, 401, 'unauthorized');
  expect(await partner.historyEntries(guarantee.id)).toHaveLength(before);
});
