/**
 * Issue 37, item 5: a director's journey in headless Chromium, from the invitation link to a created
 * credential whose secret gets a token through the API and then shows as used; a rotation, the old
 * secret then refused; the agency's request log, webhooks and guarantees (a document its integration
 * attached, downloaded); sign-out. And what must
 * be refused: a reused and an expired invitation, a second browser without the cookie, a
 * cross-site form post.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { invitePerson } from '../../src/people/people';
import { hashInvitation } from '../../src/people/people';
import { staffActor } from '../../src/auth/audit-log';
import { pdfBytes } from '../support/document-files';
import { guaranteeBody } from '../support/factories';
import { TOKEN_PATH } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { checkScreen, expectScreen, useConsoleBrowser } from './console-browser';

const world = useTestApp();
const browser = useConsoleBrowser(world);
const AGENCY = 'imobiliaria-jornada';

const invite = () =>
  invitePerson(
    world.db,
    world.config.ENVIRONMENT,
    { kind: 'director', companyId: AGENCY, companyName: 'Imobiliária Jornada', name: 'Carla Diretora', actor: staffActor('Ana Admin', 'cli') },
    24,
  );

const tokenWith = (clientId: string, secret: string) =>
  request(world.app).post(TOKEN_PATH).auth(clientId, secret).type('form').send({ grant_type: 'client_credentials' });

test('When a director follows the invitation link, then they create, use, rotate and revoke a credential, read the agency, and sign out', async () => {
  const { token } = await invite();
  const { page, context } = await browser.newPage();
  const enrolLink = `${browser.origin}/console/#/enrol/${token}`;

  // The invitation link: a passkey is registered and the director is signed in.
  await page.goto(enrolLink);
  await page.getByRole('button', { name: 'Registrar chave de acesso e entrar' }).click();
  await expectScreen(page, 'Integrações e chaves de API');
  const cookies = await context.cookies();
  expect(cookies.find((cookie) => cookie.name === '__Host-rg-console')).toMatchObject({
    httpOnly: true,
    secure: true,
    sameSite: 'Strict',
    path: '/',
  });
  expect(await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }))).not.toMatch(/ses_|cs_/);
  await checkScreen(page, 'director-credentials-empty');

  // Create a credential with only the read scope: its secret is shown once.
  await page.getByLabel('Nome da integração').fill('ERP Jornada');
  await page.getByLabel(/Ler garantias, histórico e assinaturas/).check();
  await page.getByLabel(/Criar e alterar garantias/).check();
  await page.getByRole('button', { name: 'Criar', exact: true }).click();
  const secretShown = page.locator('[data-secret="once"]');
  await secretShown.waitFor();
  const firstSecret = (await secretShown.textContent())!;
  const clientId = (await page.locator('section.card code').first().textContent())!;
  expect(firstSecret).toMatch(/^sbx_cs_/);
  expect(clientId).toMatch(/^sbx_ci_/);
  await checkScreen(page, 'director-secret-shown-once');

  // The integration gets a token; the console then shows the secret as used.
  const first = await tokenWith(clientId, firstSecret);
  expect(first.status).toBe(200);
  await page.getByRole('button', { name: 'Atualizar' }).click();
  await page.locator('table td', { hasText: 'de 127.0.0.1' }).first().waitFor();
  expect(await page.locator('[data-secret="once"]').count()).toBe(0);
  await page.reload();
  await page.getByRole('heading', { name: 'ERP Jornada' }).waitFor();
  expect(await page.locator('[data-secret="once"]').count()).toBe(0);
  expect(await page.content()).not.toContain(firstSecret);

  // Rotation: a second secret, it starts issuing tokens, then the old one is revoked and refused.
  await page.getByRole('button', { name: 'Emitir novo segredo (rotação)' }).click();
  await secretShown.waitFor();
  const secondSecret = (await secretShown.textContent())!;
  expect(secondSecret).not.toBe(firstSecret);
  const partner = await tokenWith(clientId, secondSecret);
  expect(partner.status).toBe(200);
  await page.getByRole('button', { name: 'Atualizar' }).click();
  const rows = page.locator('section.card tbody tr');
  await rows.nth(1).locator('td:nth-child(5)', { hasText: /^1$/ }).waitFor();
  await checkScreen(page, 'director-rotation');
  await rows
    .nth(0)
    .getByRole('button', { name: /Revogar este segredo/ })
    .click();
  await rows.nth(0).locator('td', { hasText: 'revogado' }).waitFor();
  expect((await tokenWith(clientId, firstSecret)).status).toBe(401);
  expect((await tokenWith(clientId, secondSecret)).status).toBe(200);

  // The agency's guarantees, request log and webhooks, as its integration left them.
  const auth = { Authorization: `Bearer ${partner.body.access_token}` };
  const created = await request(world.app)
    .post('/rental-guarantee/v1/rental-insurances')
    .set(auth)
    .set('Idempotency-Key', `k-${Date.now()}`)
    .send(guaranteeBody());
  expect(created.status).toBe(201);
  const proof = pdfBytes();
  const attached = await request(world.app)
    .post(`/rental-guarantee/v1/rental-insurances/${created.body.id}/documents`)
    .set(auth)
    .set('Idempotency-Key', `k-doc-${Date.now()}`)
    .attach('file', proof, { filename: 'comprovante-renda.pdf', contentType: 'application/pdf' });
  expect(attached.status).toBe(201);
  await world.flushRequestLog();
  await page.getByRole('link', { name: 'Garantias' }).click();
  await page.getByRole('link', { name: String(created.body.id) }).waitFor();
  await checkScreen(page, 'director-guarantees');
  await page.getByRole('link', { name: String(created.body.id) }).click();
  await page.getByRole('heading', { name: `Garantia ${created.body.id}` }).waitFor();
  await checkScreen(page, 'director-guarantee');
  // The document its integration attached, in the history and the documents, downloaded with the session.
  const [saved] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Baixar: comprovante-renda.pdf' }).first().click(),
  ]);
  expect(saved.suggestedFilename()).toBe('comprovante-renda.pdf');
  expect(Buffer.compare(fs.readFileSync(await saved.path()), proof)).toBe(0);
  await page.getByRole('link', { name: 'Registro de requisições' }).click();
  await page.locator('td', { hasText: 'createRentalInsurance' }).first().waitFor();
  await page
    .getByRole('button', { name: /^Abrir/ })
    .first()
    .click();
  await checkScreen(page, 'director-request-log');
  await page.getByRole('link', { name: 'Webhooks' }).click();
  await page.getByRole('heading', { name: 'Webhooks da imobiliária' }).waitFor();
  await checkScreen(page, 'director-webhooks');

  // English is available.
  await page.getByRole('button', { name: 'English' }).click();
  await page.getByRole('heading', { name: "The agency's webhooks" }).waitFor();
  await page.getByRole('button', { name: 'Português' }).click();

  // Sign-out ends the session for every process: the old cookie is refused afterwards.
  const sessionCookie = (await context.cookies()).find((cookie) => cookie.name === '__Host-rg-console')!.value;
  await page.getByRole('button', { name: 'Sair' }).click();
  await page.getByRole('heading', { name: 'Entrar no console' }).waitFor();
  await checkScreen(page, 'sign-in');
  const after = await request(world.app)
    .get('/back-office/v1/agency/credentials')
    .set('Cookie', `__Host-rg-console=${sessionCookie}`)
    .set('X-Console-Request', '1');
  expect(after.status).toBe(401);

  // A valid assertion presented to the service under another origin is refused (its challenge was
  // this service's and unspent, its signature good: only the origin is wrong).
  let intercepted: string | undefined;
  await page.route('**/console/api/v1/sign-in', async (route) => {
    intercepted = route.request().postData() ?? undefined;
    await route.abort();
  });
  await page.getByRole('button', { name: 'Entrar com chave de acesso' }).click();
  await page.locator('.error').waitFor();
  await page.unroute('**/console/api/v1/sign-in');
  const host = new URL(browser.origin).host;
  const elsewhere = await request(world.app)
    .post('/console/api/v1/sign-in')
    .set({
      Host: `other-site.example:${new URL(browser.origin).port}`,
      Origin: `http://other-site.example:${new URL(browser.origin).port}`,
      'X-Console-Request': '1',
    })
    .type('json')
    .send(intercepted!);
  expect({ status: elsewhere.status, code: elsewhere.body.code }).toEqual({ status: 400, code: 'sign_in_failed' });

  // Signing in again with the passkey (the same authenticator) works; its answer replayed does not.
  const signingIn = page.waitForRequest((sent) => sent.url().endsWith('/console/api/v1/sign-in'));
  await page.getByRole('button', { name: 'Entrar com chave de acesso' }).click();
  const assertion = (await signingIn).postData()!;
  await expectScreen(page, 'Integrações e chaves de API');
  const replayed = await request(world.app)
    .post('/console/api/v1/sign-in')
    .set({ Host: host, Origin: browser.origin, 'X-Console-Request': '1' })
    .type('json')
    .send(assertion);
  expect({ status: replayed.status, code: replayed.body.code }).toEqual({ status: 400, code: 'sign_in_failed' });
  expect(replayed.headers['set-cookie']).toBeUndefined();

  // The invitation is spent: the link is refused.
  await page.goto(enrolLink);
  await page.locator('.error', { hasText: 'já usado' }).waitFor();
  await context.close();
}, 120_000);

test('When a second browser has no session cookie, then the console sends it to sign in and the back office answers 401', async () => {
  const { page, context } = await browser.newPage();
  await page.goto(`${browser.origin}/console/#/credentials`);
  await page.getByRole('heading', { name: 'Entrar no console' }).waitFor();
  const status = await page.evaluate(
    async () => (await fetch('/back-office/v1/agency/credentials', { headers: { 'X-Console-Request': '1' } })).status,
  );
  expect(status).toBe(401);
  await context.close();
}, 60_000);

test('When an invitation has expired, then its link is refused and nothing is enrolled', async () => {
  const { token, person } = await invite();
  await world.db.consoleInvitation.update({ where: { tokenHash: hashInvitation(token) }, data: { expiresAt: new Date(Date.now() - 1000) } });
  const { page, context } = await browser.newPage();
  await page.goto(`${browser.origin}/console/#/enrol/${token}`);
  await page.locator('.error', { hasText: 'expirado' }).waitFor();
  await checkScreen(page, 'enrol-expired');
  expect(await world.db.consolePasskey.count({ where: { personId: person.id } })).toBe(0);
  await context.close();
}, 60_000);

test('When another site posts a form to the back office, then the signed-in director’s session is not used and nothing is created', async () => {
  const { token, person } = await invite();
  const { page, context } = await browser.newPage();
  await page.goto(`${browser.origin}/console/#/enrol/${token}`);
  await page.getByRole('button', { name: 'Registrar chave de acesso e entrar' }).click();
  await expectScreen(page, 'Integrações e chaves de API');
  const before = await world.db.credential.count({ where: { companyId: person.companyId } });
  // Another origin (127.0.0.1 is another site than localhost) serves a form aimed at the back office.
  const target = `${browser.origin}/back-office/v1/agency/credentials`;
  const evil = http.createServer((_req, res) => {
    res.setHeader('Content-Type', 'text/html');
    res.end(
      `<form id="f" method="post" action="${target}" enctype="text/plain"><input name='{"displayName":"Evil","scopes":["ri:rental-insurances:read"],"x":"' value='"}'></form>` +
        '<script>document.getElementById("f").submit()</script>',
    );
  });
  await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
  const answered = page.waitForResponse((response) => response.url() === target);
  await page.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
  const response = await answered;
  expect([401, 403]).toContain(response.status());
  expect(await world.db.credential.count({ where: { companyId: person.companyId } })).toBe(before);
  evil.close();
  await context.close();
}, 60_000);
