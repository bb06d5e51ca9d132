#!/usr/bin/env node
/**
 * The API reference page (GET {base_url}/docs) in a real headless Chromium, against a real sandbox
 * service (make reference-page-check; CI runs it). It fails unless:
 *   - every operation (and webhook) of the published document is on the page, and so are the
 *     Authentication section (the OAuth 2.0 scheme, its scopes and this deployment's token URL),
 *     the servers set to this deployment, and the sandbox magic values;
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

async function checkPage(service, document) {
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
      requests.push(request.url());
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
    await page.waitForSelector('[data-section-id^="operation/"]', { timeout: 60_000 });
    await page.waitForLoadState('networkidle');

    const present = await page.evaluate(() =>
      [...document.querySelectorAll('[data-section-id]')].map((element) => element.getAttribute('data-section-id')),
    );
    const sections = new Set(present);
    const operations = [...operationsOf(document.paths), ...operationsOf(document.webhooks)];
    for (const { label, operationId } of operations) {
      if (!operationId) problems.push(`${label}: has no operationId, so the check cannot find it on the page`);
      else if (!sections.has(`operation/${operationId}`)) problems.push(`${label} (${operationId}) is not on the page`);
    }
    const text = await page.evaluate(() => document.getElementById('reference')?.textContent ?? '');
    const schemes = Object.keys(document.components?.securitySchemes ?? {});
    for (const scheme of schemes) {
      if (!sections.has(`section/Authentication/${scheme}`)) problems.push(`the Authentication section of the ${scheme} scheme is not on the page`);
    }
    const tokenUrl = `${service.authUrl}/oauth2/token`;
    const scopes = Object.keys(document.components?.securitySchemes?.oauth2?.flows?.clientCredentials?.scopes ?? {});
    for (const expected of [tokenUrl, ...scopes, `${service.baseUrl}/v1/rental-insurances`]) {
      if (!text.includes(expected)) problems.push(`the page does not show ${expected}`);
    }
    const sandbox = page.locator('[data-section-id="section/Testing-in-the-sandbox"]');
    await sandbox.scrollIntoViewIfNeeded();
    const sandboxText = (await sandbox.textContent()) ?? '';
    if (!(await sandbox.isVisible()) || !/Magic values/.test(sandboxText) || !sandboxText.includes('3500.01')) {
      problems.push('the sandbox magic values (section "Testing in the sandbox") are not visible');
    }
    fs.mkdirSync(OUT, { recursive: true });
    await page.screenshot({ path: path.join(OUT, 'sandbox-magic-values.png') });
    // Runs in the page, where `window` exists.
    // eslint-disable-next-line no-undef
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(OUT, 'reference-page.png') });
    return { problems, operations: operations.length, requests };
  } finally {
    await context.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
}

function operationsOf(paths = {}) {
  const methods = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options', 'trace'];
  return Object.entries(paths).flatMap(([name, item]) =>
    methods.filter((method) => item?.[method]).map((method) => ({ label: `${method.toUpperCase()} ${name}`, operationId: item[method].operationId })),
  );
}

async function main() {
  const started = Date.now();
  ensureChromium();
  const service = await startSandboxService({ name: 'reference-page' });
  try {
    const document = await (await fetch(`${service.baseUrl}/openapi.json`)).json();
    const { problems, operations, requests } = await checkPage(service, document);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    if (problems.length > 0) {
      console.error(`reference-page-check: FAILED (${problems.length} problem(s)):\n  - ${problems.join('\n  - ')}`);
      console.error(`  requests made by the page: ${requests.join(', ')}`);
      return 1;
    }
    console.log(
      `reference-page-check: OK, ${operations} operations, the Authentication section, this deployment's servers and the sandbox magic values ` +
        `on ${service.baseUrl}/docs; ${requests.length} request(s), all to the service itself, none failed (${seconds} s). ` +
        `Screenshots: ${path.relative(root, OUT)}/reference-page.png, sandbox-magic-values.png`,
    );
    return 0;
  } finally {
    await service.stop();
  }
}

exitWith('reference-page-check', main);
