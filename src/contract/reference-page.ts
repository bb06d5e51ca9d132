/**
 * GET {base_url}/docs: the partner document rendered by Redoc (2.x standalone bundle), as ONE
 * self-contained HTML page: the renderer and the document are inlined, so the page loads nothing
 * else, from us or from anyone (no CDN, no font, no image host). A pure function of the document,
 * cached per document; the Content-Security-Policy that goes with it allows exactly the two inline
 * scripts (by hash) and refuses every other origin, so a future renderer version that tries to
 * load something from outside fails loudly in the browser check instead of leaking.
 *
 * Why Redoc 2.5 and not Scalar: Redoc's standalone bundle is a single file we can inline and hash,
 * and redoc 2.5 installs on Node 20 (its engines field: node >= 6.9), which the service still supports.
 * Scalar's Express middleware (@scalar/express-api-reference 0.10, and @scalar/api-reference 1.x
 * behind it) declares Node >= 22, and its page loads the renderer from cdn.jsdelivr.net by default
 * (its ESM build then imports further chunks), so self-hosting would mean serving its files too.
 * Redoc 3.0 also declares Node >= 22: stay on 2.5.x while Node 20 is supported.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';

export interface ReferencePage {
  html: string;
  contentSecurityPolicy: string;
}

// Redoc 2.5 draws its attribution logo from Redocly's CDN (there is no option to turn it off);
// a blank inline image keeps the link and loads nothing. Checked: the URL occurs exactly once.
const EXTERNAL_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const BLANK_IMAGE = 'data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw==';

// System fonts: Redoc's default fonts (Montserrat, Roboto) would have to come from a font host.
const SANS = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';
const MONO = 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace';
const REDOC_OPTIONS = {
  theme: { typography: { fontFamily: SANS, headings: { fontFamily: SANS }, code: { fontFamily: MONO } } },
  expandResponses: '200,201',
  jsonSampleExpandLevel: 3,
  hideHostname: false,
  menuToggle: true,
  sortPropsAlphabetically: false,
  // The page never needs the network: the "Download" button saves the inlined document.
  downloadFileName: 'openapi.json',
};

const INIT_SCRIPT = [
  "var documentElement = document.getElementById('partner-document');",
  "Redoc.init(JSON.parse(documentElement.textContent), JSON.parse(documentElement.getAttribute('data-options')), document.getElementById('reference'));",
].join('\n');

let renderer: { script: string; hash: string } | undefined;
const cache = new Map<string, ReferencePage>();
const CACHE_ENTRIES = 4; // one per origin the service is reached at; PUBLIC_ORIGIN makes it one

export function referencePage(document: Record<string, unknown>): ReferencePage {
  const json = JSON.stringify(document);
  const key = createHash('sha256').update(json).digest('base64');
  const cached = cache.get(key);
  if (cached) return cached;
  const page = render(document, json);
  if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
  cache.set(key, page);
  return page;
}

function render(document: Record<string, unknown>, json: string): ReferencePage {
  const { script, hash } = (renderer ??= loadRenderer());
  const info = (document['info'] ?? {}) as { title?: string; version?: string };
  const title = escapeHtml(`${info.title ?? 'API'} ${info.version ?? ''} reference`.trim());
  const html = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${title}</title>
<style>body { margin: 0; padding: 0; }</style>
</head>
<body>
<noscript>This page needs JavaScript. The same document is available as <a href="openapi.json">openapi.json</a> and <a href="openapi.yaml">openapi.yaml</a>.</noscript>
<div id="reference"></div>
<script id="partner-document" type="application/json" data-options="${escapeHtml(JSON.stringify(REDOC_OPTIONS))}">${jsonForScript(json)}</script>
<script>${script}</script>
<script>${INIT_SCRIPT}</script>
</body>
</html>
`;
  const contentSecurityPolicy = [
    "default-src 'none'",
    `script-src '${hash}' '${sha256(INIT_SCRIPT)}'`,
    // Redoc (styled-components) writes its styles into <style> elements and style attributes.
    "style-src 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    // The search index runs in a worker that the bundle starts from a blob: URL.
    'worker-src blob:',
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { html, contentSecurityPolicy };
}

function loadRenderer(): { script: string; hash: string } {
  const original = fs.readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'), 'utf8');
  const occurrences = original.split(EXTERNAL_LOGO).length - 1;
  if (occurrences !== 1) throw new Error(`reference page: expected Redoc's CDN logo URL once in the bundle, found it ${occurrences} times`);
  const script = original.replace(EXTERNAL_LOGO, BLANK_IMAGE);
  assertInlineScriptSafe(script);
  return { script, hash: sha256(script) };
}

/**
 * An inline <script> ends at the first `</script`, and after `<!--` a `<script` (before the next
 * `-->`) makes the HTML parser ignore the real end tag. Neither may occur in an inlined bundle.
 */
function assertInlineScriptSafe(script: string): void {
  const lower = script.toLowerCase();
  if (lower.includes('</script')) throw new Error('reference page: the renderer bundle contains </script and cannot be inlined');
  for (let open = lower.indexOf('<!--'); open >= 0; open = lower.indexOf('<!--', open + 4)) {
    const close = lower.indexOf('-->', open + 4);
    const nested = lower.indexOf('<script', open);
    if (nested >= 0 && (close < 0 || nested < close))
      throw new Error('reference page: the renderer bundle has <!-- ... <script and cannot be inlined');
  }
}

/** JSON inside a data block: `<` escaped so that no `</script>` or `<!--` can appear in it. */
function jsonForScript(json: string): string {
  return json.replace(/</g, '\\u003c');
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function sha256(text: string): string {
  return `sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}`;
}
