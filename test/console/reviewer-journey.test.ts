/**
 * Issue 37, item 5: a reviewer's journey in headless Chromium, from the invitation link to an
 * approval in the queue that the partner API then shows; a request for information with a PDF that
 * the partner then reads in the history, downloaded back from the desk; a decline with its reason
 * that the partner API then shows; the guarantee's history and signatures; credential
 * administration (another agency's credential revoked), the audit log, a director re-invited, a
 * second passkey added and removed; and the first load of a page in bytes and requests (written to
 * .data/console/first-load.json).
 */
import fs from 'node:fs';
import path from 'node:path';
import { staffActor } from '../../src/auth/audit-log';
import { invitePerson } from '../../src/people/people';
import { htmlBytes, pdfBytes, sha256Of } from '../support/document-files';
import { guaranteeBody } from '../support/factories';
import { ANONYMOUS, asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { addAuthenticator, checkScreen, expectScreen, SCREENSHOTS, useConsoleBrowser } from './console-browser';

const world = useTestApp({}, { agencies: 1 });
const browser = useConsoleBrowser(world);

test('When a reviewer follows the invitation link, then they approve a guarantee from the queue and the partner sees the approval', async () => {
  const partner = asPartner(world);
  const created = await partner.create(guaranteeBody());
  expect(created.status).toBe(201);
  const id = created.body.id as number;
  const { token } = await invitePerson(
    world.db,
    world.config.ENVIRONMENT,
    { kind: 'staff', name: 'Renata Revisora', scopes: ['ops:guarantees:review', 'ops:credentials:admin'], actor: staffActor('Ana Admin', 'cli') },
    24,
  );
  const { page, context, cdp, authenticator } = await browser.newPage();

  // The first load of a page: every request and its bytes (the enrolment page, as an invited person first sees it).
  const loads: Array<{ url: string; bytes: number }> = [];
  page.on('requestfinished', (finished) => {
    void finished.sizes().then((sizes) => loads.push({ url: finished.url(), bytes: sizes.responseBodySize + sizes.responseHeadersSize }));
  });
  await page.goto(`${browser.origin}/console/#/enrol/${token}`, { waitUntil: 'networkidle' });
  await expectScreen(page, 'Criar sua chave de acesso');
  await checkScreen(page, 'enrol');
  fs.writeFileSync(
    path.join(SCREENSHOTS, 'first-load.json'),
    JSON.stringify(
      { page: 'enrolment (invitation link)', requests: loads.length, bytes: loads.reduce((sum, load) => sum + load.bytes, 0), loads },
      null,
      2,
    ),
  );
  for (const load of loads) expect(new URL(load.url).origin).toBe(browser.origin);

  await page.getByRole('button', { name: 'Registrar chave de acesso e entrar' }).click();
  await expectScreen(page, 'Fila de análise');
  await page.getByRole('link', { name: `Analisar ${id}` }).waitFor();
  await checkScreen(page, 'reviewer-queue');

  // Filtered by another agency, the guarantee is not in the queue.
  await page.getByLabel('Imobiliária').fill('another-agency');
  await page.getByRole('button', { name: 'Filtrar' }).click();
  await page.getByRole('link', { name: `Analisar ${id}` }).waitFor({ state: 'detached' });
  await page.getByLabel('Imobiliária').fill(world.agency.companyId);
  await page.getByRole('button', { name: 'Filtrar' }).click();
  await page.getByRole('link', { name: `Analisar ${id}` }).click();
  await expectScreen(page, `Garantia ${id}`);
  await checkScreen(page, 'reviewer-guarantee');

  await page.getByLabel('Parcela mensal (R$)').fill('456.04');
  await page.getByLabel('Limite de cobertura (R$)', { exact: true }).fill('136815.30');
  await page.getByLabel('Limite de cobertura de aluguel (R$)').fill('105000');
  await page.getByLabel('Início da cobrança').fill('2026-12-01');
  await page.getByRole('button', { name: 'Aprovar' }).click();
  await page.locator('#guarantee-status', { hasText: 'approved' }).waitFor();

  // The partner API shows the approval, signed by the reviewer, as history and as the guarantee.
  const seen = await partner.get(id);
  expect(seen.body).toMatchObject({ status: 'approved', installmentAmount: 456.04, coverageLimit: 136815.3, startBillingDate: '2026-12-01' });
  const history = await partner.history(id);
  expect(history.body._embedded.historyEntries.at(-1)).toMatchObject({
    creator: { name: 'Renata Revisora', serviceAccount: false },
    status: { code: 'approved' },
  });

  // A comment through the desk.
  await page.getByLabel('Comentar').fill('Proposta enviada ao inquilino.');
  await page.getByRole('button', { name: 'Enviar' }).click();
  await page.locator('td', { hasText: 'Proposta enviada ao inquilino.' }).waitFor();

  // A request for information with a PDF attached: refused first for an HTML page named .pdf (the
  // error body's message on screen), then sent; the partner API shows the file in the history.
  const asking = await partner.newGuarantee();
  await page.goto(`${browser.origin}/console/#/review/${asking.id}`);
  await expectScreen(page, `Garantia ${asking.id}`);
  await page.getByLabel('Comentário', { exact: true }).fill('Envie a lista anexa preenchida.');
  const files = page.getByLabel('Arquivos para o parceiro (PDF, JPEG ou PNG; até 5, 10 MB cada)');
  await files.setInputFiles({ name: 'lista.pdf', mimeType: 'application/pdf', buffer: htmlBytes() });
  await page.getByRole('button', { name: 'Pedir informações' }).click();
  await page.locator('.error', { hasText: 'Only PDF, JPEG and PNG documents are accepted.' }).waitFor();
  const checklist = pdfBytes();
  await files.setInputFiles({ name: 'lista.pdf', mimeType: 'application/pdf', buffer: checklist });
  await page.getByRole('button', { name: 'Pedir informações' }).click();
  await page.locator('#guarantee-status', { hasText: 'information_requested' }).waitFor();
  await checkScreen(page, 'reviewer-documents');
  const asked = (await partner.historyEntries(asking.id)).at(-1)!;
  expect(asked).toMatchObject({ status: { code: 'information_requested' }, comment: 'Envie a lista anexa preenchida.' });
  expect(asked.documents.map((document) => [document.fileName, document.sha256, document.creator.name])).toEqual([
    ['lista.pdf', sha256Of(checklist), 'Renata Revisora'],
  ]);
  // The reviewer downloads it back from the desk (fetched with the session, saved from a Blob).
  const [saved] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Baixar: lista.pdf' }).first().click()]);
  expect(saved.suggestedFilename()).toBe('lista.pdf');
  expect(Buffer.compare(fs.readFileSync(await saved.path()), checklist)).toBe(0);

  // A decline with the reason: the partner API shows the guarantee declined, with the reviewer's comment.
  const declining = await partner.newGuarantee();
  await page.goto(`${browser.origin}/console/#/review/${declining.id}`);
  await expectScreen(page, `Garantia ${declining.id}`);
  await page.getByLabel('Comentário', { exact: true }).fill('Renda insuficiente para o valor do aluguel.');
  await page.getByRole('button', { name: 'Recusar' }).click();
  await page.locator('#guarantee-status', { hasText: 'declined' }).waitFor();
  await checkScreen(page, 'reviewer-declined');
  expect((await partner.get(declining.id)).body).toMatchObject({ id: declining.id, status: 'declined' });
  expect((await partner.historyEntries(declining.id)).at(-1)).toMatchObject({
    status: { code: 'declined' },
    comment: 'Renda insuficiente para o valor do aluguel.',
    creator: { name: 'Renata Revisora', serviceAccount: false },
  });

  // Credential administration and the audit log.
  await page.getByRole('link', { name: 'Credenciais (todas)' }).click();
  await page.locator('td', { hasText: world.agency.clientId }).waitFor();
  await checkScreen(page, 'staff-credentials');
  // Another agency's credential revoked from the screen (after the confirmation): its secret gets no token any more.
  const leaving = await world.newAgency();
  await page.getByLabel('Empresa').fill(leaving.companyId);
  await page.getByRole('button', { name: 'Filtrar' }).click();
  await page.locator('td', { hasText: leaving.clientId }).waitFor();
  await page.getByRole('button', { name: 'Revogar credencial' }).click();
  await page.getByRole('cell', { name: 'revogado', exact: true }).waitFor();
  const refused = await asPartner(world, ANONYMOUS)
    .tokenRequest()
    .auth(leaving.clientId, leaving.clientSecret)
    .send({ grant_type: 'client_credentials' });
  expect({ status: refused.status, error: refused.body.error }).toEqual({ status: 401, error: 'invalid_client' });
  await page.getByRole('link', { name: 'Auditoria' }).click();
  await page.locator('td', { hasText: 'console.person_invited' }).first().waitFor();
  // The revocation is there, by the reviewer, from the console.
  const revocation = page.locator('tr', { hasText: 'credential.revoked' }).filter({ hasText: leaving.companyId });
  await revocation.waitFor();
  expect(await revocation.textContent()).toEqual(expect.stringContaining('staff:Renata Revisora'));
  expect(await revocation.textContent()).toEqual(expect.stringContaining('"via":"console"'));
  await checkScreen(page, 'staff-audit-log');

  // A director who lost their passkeys is re-invited: the new link is shown once, the old one is spent.
  const lost = await invitePerson(
    world.db,
    world.config.ENVIRONMENT,
    { kind: 'director', companyId: world.agency.companyId, name: 'Dalva Diretora', actor: staffActor('Ana Admin', 'cli') },
    24,
  );
  await page.getByRole('link', { name: 'Diretores' }).click();
  await expectScreen(page, 'Diretores das imobiliárias');
  await page.getByLabel('Imobiliária').fill(world.agency.companyId);
  await page.getByRole('button', { name: 'Filtrar' }).click();
  await page.getByRole('button', { name: 'Reenviar convite: Dalva Diretora' }).click();
  const link = await page.locator('#link-once [data-secret="once"]').textContent();
  expect(link).toMatch(new RegExp(`^${browser.origin}/console/#/enrol/sbx_inv_[A-Za-z0-9_-]{43}$`));
  await checkScreen(page, 'staff-directors');
  const spent = await fetch(`${browser.origin}/console/api/v1/enrolment/options`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: browser.origin, 'X-Console-Request': '1' },
    body: JSON.stringify({ invitation: lost.token }),
  });
  expect(((await spent.json()) as { code: string }).code).toBe('invitation_invalid');

  // A second passkey (another device: the first one already holds a passkey of this person), then one removed.
  await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: authenticator });
  await addAuthenticator(cdp);
  await page.getByRole('link', { name: 'Minhas chaves' }).click();
  await page.getByLabel('Nome da chave (por exemplo, o dispositivo)').fill('Notebook');
  await page.getByRole('button', { name: 'Adicionar chave de acesso' }).click();
  await page.getByRole('cell', { name: 'Notebook', exact: true }).waitFor();
  await checkScreen(page, 'passkeys');
  await page.getByRole('button', { name: 'Remover: Notebook' }).click();
  await page.getByRole('cell', { name: 'Notebook', exact: true }).waitFor({ state: 'detached' });
  await context.close();
}, 120_000);
