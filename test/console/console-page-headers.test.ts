/**
 * Issue 37: what the service sends when a browser opens the console, over HTTP. The page and its
 * bundle carry a strict Content-Security-Policy (scripts, styles and connections from this origin
 * only, no inline script or style, no framing, forms posted only here), `nosniff` and the other
 * isolation headers; and the HTML itself holds no inline script, no inline style and no address of
 * another origin, so the policy does not have to allow any. (What Chromium does with it is in the
 * browser journeys.)
 */
import request from 'supertest';
import { expectErrorBody } from '../support/error-body';
import { useTestApp } from '../support/test-app';
import { asText } from '../support/text-body';

const world = useTestApp();

/** The policy's directives by name: `{ 'script-src': ["'self'"], ... }`. */
function directivesOf(policy: string): Record<string, string[]> {
  const directives: Record<string, string[]> = {};
  for (const part of policy.split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) directives[name.toLowerCase()] = sources;
  }
  return directives;
}

const open = (path: string) => request(world.app).get(path).set('Host', 'console.test').buffer(true).parse(asText);

function expectStrictHeaders(response: request.Response): void {
  const policy = directivesOf(response.headers['content-security-policy'] as string);
  // Nothing is allowed unless named: scripts, styles, images, fonts and fetches from this origin only.
  expect(policy['default-src']).toEqual(["'none'"]);
  for (const directive of ['script-src', 'style-src', 'img-src', 'connect-src', 'font-src']) expect(policy[directive]).toEqual(["'self'"]);
  expect(policy['frame-ancestors']).toEqual(["'none'"]);
  expect(policy['form-action']).toEqual(["'self'"]);
  expect(policy['base-uri']).toEqual(["'none'"]);
  // No directive opens a door for inline code, eval, or any other origin.
  const sources = Object.values(policy).flat();
  expect(sources.filter((source) => /unsafe-|nonce-|sha(256|384|512)-|^data:|^blob:|^https?:|^\*|^wss?:/i.test(source))).toEqual([]);
  expect(response.headers['x-content-type-options']).toBe('nosniff');
  expect(response.headers['referrer-policy']).toBe('no-referrer');
  expect(response.headers['cross-origin-opener-policy']).toBe('same-origin');
  expect(response.headers['cross-origin-resource-policy']).toBe('same-origin');
}

describe('When a browser opens the console', () => {
  test('then the page comes with a strict Content-Security-Policy, nosniff, and no inline script, inline style or other origin in its HTML', async () => {
    const page = await open('/console/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-cache');
    expectStrictHeaders(page);

    const html = page.body as string;
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)].map((match) => ({ attributes: match[1]!, body: match[2]! }));
    // One script, the bundle, loaded from this origin by a relative URL; no script has a body.
    expect(scripts).toEqual([{ attributes: ' src="assets/app.js" defer', body: '' }]);
    expect(html).not.toMatch(/<style\b/i);
    expect(html).not.toMatch(/\sstyle\s*=/i);
    expect(html).not.toMatch(/\son[a-z]+\s*=/i);
    expect(html).not.toMatch(/javascript:/i);
    // Every address the page names is relative: nothing from another origin.
    const addresses = [...html.matchAll(/\s(?:src|href|action)\s*=\s*"([^"]*)"/gi)].map((match) => match[1]!);
    expect(addresses.length).toBeGreaterThan(0);
    expect(addresses.filter((address) => /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i.test(address))).toEqual([]);
    // The back office's base path reaches the bundle in a meta element, not in an inline script.
    expect(html).toContain('<meta name="rg-back-office" content="/back-office" />');
  });

  test('then the bundle and the style sheet come with the same headers and their own types', async () => {
    const script = await open('/console/assets/app.js');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expectStrictHeaders(script);
    expect((script.body as string).length).toBeGreaterThan(0);
    const style = await open('/console/assets/app.css');
    expect(style.status).toBe(200);
    expect(style.headers['content-type']).toBe('text/css; charset=utf-8');
    expectStrictHeaders(style);
  });

  test('then the base path without its slash is sent to the page, and an unknown asset is not found', async () => {
    const bare = await open('/console');
    expect(bare.status).toBe(301);
    expect(bare.headers['location']).toBe('/console/');
    // The page is served at the base path only, not as an asset.
    const unknown = await request(world.app).get('/console/assets/index.html').set('Host', 'console.test');
    expectErrorBody(unknown, 404, 'route_not_found');
    expect(unknown.text).not.toContain('rg-back-office');
  });
});
