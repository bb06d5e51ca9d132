/**
 * Issue 37 item 1 through the back office: staff with ops:credentials:admin list the agencies'
 * directors and re-invite one who lost their passkeys; the director's passkeys and sessions stop
 * working at once, the new link is answered once (a replay answers none) and enrols, the old link is
 * spent, and the audit log says who did it. Staff members are not re-invited here; directors and
 * staff without the scope are refused.
 */
import request from 'supertest';
import { expectErrorBody } from '../support/error-body';
import { useTestApp } from '../support/test-app';
import { asConsole, signedInPerson } from './console-sessions';

const world = useTestApp();
const AGENCY = 'imobiliaria-reconvite';
const PAGE = { Host: 'console.test', Origin: 'http://console.test', 'X-Console-Request': '1' };

test('When staff re-invite a director who lost their passkeys, then the director’s session ends at once and the new link enrols once', async () => {
  const director = await signedInPerson(world, { kind: 'director', companyId: AGENCY, name: 'Célia Diretora' });
  const admin = asConsole(world, await signedInPerson(world, { kind: 'staff', name: 'Ana Admin', scopes: ['ops:credentials:admin'] }));
  expect((await asConsole(world, director).get('/back-office/v1/agency/credentials')).status).toBe(200);

  const list = await admin.get(`/back-office/v1/directors?companyId=${AGENCY}`);
  expect(list.status).toBe(200);
  expect(list.body._embedded.directors).toEqual([
    { id: director.personId, companyId: AGENCY, name: 'Célia Diretora', passkeys: 0, sessions: 1, createdAt: expect.any(String) },
  ]);

  const key = 'reinvite-celia-1';
  const reinvited = await admin.post(`/back-office/v1/directors/${director.personId}/reinvite`, undefined, key);
  expect(reinvited.status).toBe(200);
  expect(reinvited.body).toMatchObject({ director: { id: director.personId, passkeys: 0, sessions: 0 }, expiresAt: expect.any(String) });
  expect(reinvited.body.enrolmentLink).toMatch(/^http:\/\/console\.test\/console\/#\/enrol\/sbx_inv_[A-Za-z0-9_-]{43}$/);

  // The director's open session stops working at once.
  expectErrorBody(await asConsole(world, director).get('/back-office/v1/agency/credentials'), 401, 'unauthorized');
  // The link is shown once: a replay of the same request answers none.
  const replay = await admin.post(`/back-office/v1/directors/${director.personId}/reinvite`, undefined, key);
  expect(replay.status).toBe(200);
  expect(replay.headers['idempotent-replay']).toBe('true');
  expect(replay.body.enrolmentLink).toBeNull();
  // The new link starts an enrolment.
  const invitation = (reinvited.body.enrolmentLink as string).split('/').pop();
  const started = await request(world.app).post('/console/api/v1/enrolment/options').set(PAGE).send({ invitation });
  expect(started.status).toBe(200);
  expect(started.body.person).toMatchObject({ name: 'Célia Diretora', kind: 'director' });

  const audit = await admin.get('/back-office/v1/audit-log?action=console.person_reinvited');
  expect(audit.body._embedded.auditLogEntries[0]).toMatchObject({
    action: 'console.person_reinvited',
    companyId: AGENCY,
    details: { personId: director.personId, passkeysRemoved: 0, sessionsEnded: 1 },
  });
  expect(audit.body._embedded.auditLogEntries[0].actor).toContain('Ana Admin');
});

test('When a staff member, a director or staff without the scope is named or calls, then 404 or 403 and nothing changes', async () => {
  const admin = asConsole(world, await signedInPerson(world, { kind: 'staff', name: 'Ana Admin', scopes: ['ops:credentials:admin'] }));
  const reviewer = await signedInPerson(world, { kind: 'staff', name: 'Rui Revisor', scopes: ['ops:guarantees:review'] });
  const director = await signedInPerson(world, { kind: 'director', companyId: AGENCY, name: 'Dora Diretora' });

  expectErrorBody(await admin.post(`/back-office/v1/directors/${reviewer.personId}/reinvite`), 404, 'not_found');
  expectErrorBody(await admin.post('/back-office/v1/directors/not-a-uuid/reinvite'), 404, 'not_found');
  expect((await asConsole(world, reviewer).get('/back-office/v1/review-queue')).status).toBe(200);

  expectErrorBody(await asConsole(world, director).post(`/back-office/v1/directors/${director.personId}/reinvite`), 403, 'insufficient_scope');
  expectErrorBody(await asConsole(world, director).get('/back-office/v1/directors'), 403, 'insufficient_scope');
  expectErrorBody(await asConsole(world, reviewer).post(`/back-office/v1/directors/${director.personId}/reinvite`), 403, 'insufficient_scope');
  expect((await asConsole(world, director).get('/back-office/v1/agency/credentials')).status).toBe(200);
});
