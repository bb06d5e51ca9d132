/**
 * The console in a real browser (issue 37): Debian's Chromium (apt-get installed when missing, as
 * scripts/reference-page-check.mjs does) driven by playwright-core, one launch per journey file,
 * against the test world's app listening on http://localhost:<port> (a secure context whose host is
 * a valid RP ID). Each page gets Chrome's virtual authenticator (DevTools WebAuthn domain), an axe
 * check of every screen, and screenshots under .data/console/.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo, Server } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import type { World } from '../support/test-app';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = path.resolve(__dirname, '..', '..', '.data', 'console');
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // The app listens on 127.0.0.1; the page's origin is localhost (an IP address is not a valid RP ID).
  '--host-resolver-rules=MAP localhost 127.0.0.1',
];

function ensureChromium(): void {
  if (fs.existsSync(CHROMIUM)) return;
  const asRoot = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  const run = (args: string[]) => {
    const [command, ...rest] = [...asRoot, ...args];
    execFileSync(command!, rest, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  };
  run(['apt-get', 'update', '-qq']);
  run(['apt-get', 'install', '-y', '-qq', 'chromium']);
}

export interface ConsoleBrowser {
  readonly origin: string;
  readonly browser: Browser;
  /** A new context (its own cookies) with one page and a virtual authenticator. */
  newPage(): Promise<{ context: BrowserContext; page: Page; authenticator: string; cdp: CDPSession }>;
}

/** Starts the world's app on a port and Chromium, in beforeAll; stops both in afterAll. */
export function useConsoleBrowser(world: World): ConsoleBrowser {
  let server: Server | undefined;
  let browser: Browser | undefined;
  let origin = '';
  beforeAll(async () => {
    ensureChromium();
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    server = world.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server!.once('listening', resolve));
    origin = `http://localhost:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
    world.beforeClose(async () => {
      await browser?.close();
      await new Promise((resolve) => server?.close(resolve));
    });
  }, 120_000);
  return {
    get origin() {
      return origin;
    },
    get browser() {
      return browser!;
    },
    async newPage() {
      const context = await browser!.newContext({ viewport: { width: 1280, height: 900 }, locale: 'pt-BR' });
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('WebAuthn.enable');
      const authenticatorId = await addAuthenticator(cdp);
      // Every dialog is a confirmation the journey means to give (revocations).
      page.on('dialog', (dialog) => void dialog.accept());
      return { context, page, authenticator: authenticatorId, cdp };
    },
  };
}

/** A platform authenticator that verifies its user (Chrome's virtual authenticator): another device of the person. */
export async function addAuthenticator(cdp: CDPSession): Promise<string> {
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  return authenticatorId;
}

const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations of the page as it is now (the CSP does not apply to evaluate). */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  // Runs in the page (a string: this file is compiled without the DOM's types).
  const violations = (await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length })))`,
  )) as Array<{ id: string; impact: string; help: string; nodes: number }>;
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}, ${v.nodes} nodes): ${v.help}`);
}

/** A screen as a person sees it: a screenshot, and no serious or critical accessibility violation. */
export async function checkScreen(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
  expect({ screen: name, problems: await accessibilityProblems(page) }).toEqual({ screen: name, problems: [] });
}

/** Waits for the screen titled `heading`; fails with the page's error message when one shows instead. */
export async function expectScreen(page: Page, heading: string | RegExp): Promise<void> {
  const screen = page.getByRole('heading', { name: heading });
  const error = page.locator('.error');
  await screen.or(error).first().waitFor();
  if (await error.isVisible()) throw new Error(`expected the screen "${heading}", the page says: ${await error.textContent()}`);
}
