#!/usr/bin/env node
/**
 * The API reference page (GET {base_url}/docs, Scalar) in a real headless Chromium, against a real
 * sandbox service (make reference-page-check; CI runs it). It fails unless:
 *   - every operation (and webhook) of the published document is on the page, and so are the
 *     Authentication section (the OAuth 2.0 scheme, its scopes and this deployment's token URL),
 *     the servers set to this deployment, and the sandbox magic values;
 *   - the request console works as a partner uses it: with a sandbox client ID and secret typed
 *     into the Authentication panel, "Authorize" gets a token, and "List guarantees" (List rental
 *     insurances) sent from the page answers 200 with the page of guarantees, which the console shows;
 *   - no request failed or answered >= 400, no request left the service's origin (blob: and
 *     data: URLs of the page itself are local), and the page logged no error (a blocked
 *     Content-Security-Policy load is one);
 * and it saves screenshots under .data/reference-page/.
 *
 * Chromium is Debian's, installed with apt-get when /usr/bin/chromium is missing (CHROMIUM_PATH
 * overrides the path), and driven by playwright-core; nothing downloads a browser of its own.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { exitWith } from './support/exit-with.mjs';
import { startSandboxService } from './support/sandbox-service.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const OUT = path.join(root, '.data', 'reference-page');
// What works on these machines: without the background-networking flags Chromium calls Google's hosts.
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

function ensureChromium() {
  if (fs.existsSync(CHROMIUM)) return;
  console.log(`reference-page-check: ${CHROMIUM} is missing; installing Debian's chromium with apt-get`);
  const asRoot = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  const run = (args) => {
    const [command, ...rest] = [...asRoot, ...args];
    execFileSync(command, rest, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  };
  run(['apt-get', 'update', '-qq']);
  run(['apt-get', 'install', '-y', '-qq', 'chromium']);
  if (!fs.existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium, but ${CHROMIUM} still does not exist`);
}

/** A URL the page itself owns: same origin, or a blob:/data: URL it made. */
function isLocal(url, origin) {
  if (url.startsWith('data:')) return true;
  try {
    return new URL(url).origin === origin;
  } catch {
    return false;
  }
}

async function checkPage(service, document, guaranteeId) {
  const problems = [];
  const requests = [];
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'reference-page-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1440, height: 900 },
  });
  try {
    context.on('request', (request) => {
      requests.push(`${request.method()} ${request.url()}`);
      if (!isLocal(request.url(), service.origin)) problems.push(`request left the host: ${request.method()} ${request.url()}`);
    });
    context.on('requestfailed', (request) => problems.push(`request failed: ${request.url().slice(0, 200)} (${request.failure()?.errorText})`));
    context.on('response', (response) => {
      if (response.status() >= 400) problems.push(`request answered ${response.status()}: ${response.url()}`);
    });
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error: ${message.text().slice(0, 300)}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));

    const response = await page.goto(`${service.baseUrl}/docs`, { waitUntil: 'load' });
    if (response?.status() !== 200) problems.push(`GET /docs answered ${response?.status()}`);
    await page.waitForSelector('[id*="/tag/"][id*="/GET/"]', { timeout: 60_000 });
    // A page that keeps trying to reach another host never goes idle: say so, and go on checking.
    await page.waitForLoadState('networkidle', { timeout: 30_000 }).catch(() => problems.push('the page was not network-idle within 30 s'));

    // Scalar names an operation's section ".../tag/<tag>/<METHOD>/<path>" and a webhook's
    // ".../webhook/<METHOD>/<name, lower case>"; every tag is open (defaultOpenAllTags).
    const ids = await page.evaluate(() => [...document.querySelectorAll('[id]')].map((element) => element.id));
    const operations = [
      ...operationsOf(document.paths).map((operation) => ({ ...operation, idEnd: `/${operation.method.toUpperCase()}${operation.name}` })),
      ...operationsOf(document.webhooks).map((operation) => ({
        ...operation,
        idEnd: `/webhook/${operation.method.toUpperCase()}/${operation.name.toLowerCase()}`,
      })),
    ];
    for (const { label, idEnd } of operations) {
      if (!ids.some((id) => id.endsWith(idEnd))) problems.push(`${label} is not on the page`);
    }
    const text = await page.evaluate(() => document.getElementById('reference')?.textContent ?? '');
    const schemes = Object.keys(document.components?.securitySchemes ?? {});
    const authentication = page
      .locator('.scalar-card, section, div')
      .filter({ hasText: /^Authentication/ })
      .filter({ hasText: 'Client Secret' })
      .last();
    const authenticationText = (await authentication.textContent()) ?? '';
    for (const scheme of schemes) {
      if (!authenticationText.includes(scheme)) problems.push(`the Authentication section of the ${scheme} scheme is not on the page`);
    }
    const tokenUrl = `${service.authUrl}/oauth2/token`;
    const scopes = Object.keys(document.components?.securitySchemes?.oauth2?.flows?.clientCredentials?.scopes ?? {});
    for (const expected of [tokenUrl, ...scopes, service.baseUrl]) {
      if (!text.includes(expected)) problems.push(`the page does not show ${expected}`);
    }
    const sandbox = page.locator('h2[id$="/description/testing-in-the-sandbox"]');
    await sandbox.scrollIntoViewIfNeeded();
    const afterSandbox = text.slice(text.indexOf('Testing in the sandbox'));
    if (!(await sandbox.isVisible()) || !/Magic values/.test(afterSandbox) || !afterSandbox.includes('3500.01')) {
      problems.push('the sandbox magic values (section "Testing in the sandbox") are not visible');
    }
    fs.mkdirSync(OUT, { recursive: true });
    await page.screenshot({ path: path.join(OUT, 'sandbox-magic-values.png') });
    // Runs in the page, where `window` exists.
    // eslint-disable-next-line no-undef
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(OUT, 'reference-page.png') });

    problems.push(...(await sendFromConsole(page, service, document, guaranteeId)));
    return { problems, operations: operations.length, requests };
  } finally {
    await context.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
}

/**
 * What a partner does in the console: client ID and secret into the Authentication panel,
 * Authorize, then "Test Request" on List guarantees, the example filters unticked (they would
 * select nothing), Send. The answer must be a 200 with the page of guarantees, shown on the page.
 */
async function sendFromConsole(page, service, document, guaranteeId) {
  const problems = [];
  const tokenUrl = `${service.authUrl}/oauth2/token`;
  await page.locator('[data-placeholder="12345"]').first().click(); // Client ID (an editable field)
  await page.keyboard.type(service.clientId);
  await page.locator('input[placeholder="XYZ123"]').first().fill(service.clientSecret); // Client Secret
  const [token] = await Promise.all([
    page.waitForResponse((answer) => answer.url() === tokenUrl, { timeout: 30_000 }),
    page.getByRole('button', { name: 'Authorize' }).first().click(),
  ]);
  if (token.status() !== 200) return [`Authorize: the token endpoint answered ${token.status()}`];

  const list = page.locator('[id$="/GET/v1/rental-insurances"]').first();
  await list.scrollIntoViewIfNeeded();
  await list
    .getByRole('button', { name: /Test Request/ })
    .first()
    .click();
  const listPath = document.paths['/v1/rental-insurances'].get;
  const filters = (listPath.parameters ?? [])
    .map((parameter) => (parameter.$ref ? resolve(document, parameter.$ref) : parameter))
    .filter((parameter) => parameter.in === 'query' && !['page', 'pageSize'].includes(parameter.name))
    .map((parameter) => parameter.name);
  for (const name of filters) {
    const include = page.locator(`input[aria-label="Include ${name} in request"]`).first();
    if ((await include.count()) > 0 && (await include.isChecked())) await include.uncheck();
  }
  const listUrl = `${service.baseUrl}/v1/rental-insurances`;
  const [answer] = await Promise.all([
    page.waitForResponse((candidate) => candidate.url().split('?')[0] === listUrl && candidate.request().method() === 'GET', { timeout: 30_000 }),
    page.getByRole('button', { name: 'Send' }).first().click(),
  ]);
  const body = await answer.json().catch(() => undefined);
  const ids = body?._embedded?.rentalInsurances?.map((guarantee) => guarantee.id) ?? [];
  if (answer.status() !== 200) problems.push(`List guarantees sent from the page answered ${answer.status()}`);
  else if (!ids.includes(guaranteeId))
    problems.push(`List guarantees sent from the page did not list guarantee ${guaranteeId}: ${JSON.stringify(body).slice(0, 300)}`);
  const shown = page.getByText('200 OK').first();
  try {
    await shown.waitFor({ state: 'visible', timeout: 10_000 });
  } catch {
    problems.push('the console does not show the 200 answer');
  }
  if (!(await page.getByText(`"id": ${guaranteeId}`).first().isVisible()))
    problems.push(`the console does not show guarantee ${guaranteeId} in the answer`);
  fs.mkdirSync(OUT, { recursive: true });
  await page.screenshot({ path: path.join(OUT, 'request-console.png') });
  return problems;
}

function resolve(document, ref) {
  return ref
    .slice(2)
    .split('/')
    .reduce((node, key) => node?.[key], document);
}

/** A guarantee of the demo credential's agency, so that the console's list has something to show. */
async function createGuarantee(service) {
  const token = await fetch(`${service.authUrl}/oauth2/token`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${Buffer.from(`${service.clientId}:${service.clientSecret}`).toString('base64')}`,
    },
    body: 'grant_type=client_credentials',
  });
  const { access_token: accessToken } = await token.json();
  const created = await fetch(`${service.baseUrl}/v1/rental-insurances`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${accessToken}`, 'Idempotency-Key': `reference-page-${Date.now()}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      tenant: { cpfCnpj: '529.982.247-25', name: 'Maria José da Silva' },
      property: {
        externalId: 'IMV-1',
        type: 'apartment',
        address: { zipCode: '01310-100', street: 'Avenida Paulista', number: '1578', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP' },
      },
      rentalAmount: 3500,
    }),
  });
  if (created.status !== 201) throw new Error(`creating a guarantee answered ${created.status}: ${await created.text()}`);
  return (await created.json()).id;
}

function operationsOf(paths = {}) {
  const methods = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options', 'trace'];
  return Object.entries(paths).flatMap(([name, item]) =>
    methods.filter((method) => item?.[method]).map((method) => ({ label: `${method.toUpperCase()} ${name}`, method, name })),
  );
}

async function main() {
  const started = Date.now();
  ensureChromium();
  const service = await startSandboxService({ name: 'reference-page' });
  try {
    const document = await (await fetch(`${service.baseUrl}/openapi.json`)).json();
    const guaranteeId = await createGuarantee(service);
    const { problems, operations, requests } = await checkPage(service, document, guaranteeId);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    if (problems.length > 0) {
      console.error(`reference-page-check: FAILED (${problems.length} problem(s)):\n  - ${problems.join('\n  - ')}`);
      console.error(`  requests made by the page: ${requests.join(', ')}`);
      return 1;
    }
    console.log(
      `reference-page-check: OK, ${operations} operations, the Authentication section, this deployment's servers and the sandbox magic values ` +
        `on ${service.baseUrl}/docs; from the page's console, a token with the sandbox client ID and secret and List guarantees answered 200 ` +
        `with the guarantee; ${requests.length} request(s), all to the service itself, none failed (${seconds} s). ` +
        `Screenshots: ${path.relative(root, OUT)}/reference-page.png, sandbox-magic-values.png, request-console.png`,
    );
    return 0;
  } finally {
    await service.stop();
  }
}

exitWith('reference-page-check', main);
