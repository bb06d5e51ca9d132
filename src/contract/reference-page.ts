/**
 * GET {base_url}/docs: the partner document rendered by Scalar (@scalar/api-reference, its browser
 * standalone bundle), as ONE self-contained HTML page: the renderer and the document are inlined,
 * so the page loads nothing else, from us or from anyone (no CDN, no font host, no telemetry). A
 * pure function of the document and of whether the page has a request console; the
 * Content-Security-Policy that goes with it allows exactly the two inline scripts (by hash), and
 * requests only to this origin, so a renderer version that tries to load or send something
 * elsewhere fails loudly in the browser check instead of leaking.
 *
 * Why Scalar (issue 22): with Node 20 gone it installs, and its request console lets a partner
 * fill in sandbox client credentials (OAuth 2.0 client credentials) and send a request from the
 * page; Redoc has no console. The console talks to this origin directly: the token URL and the
 * servers are this deployment's, so Scalar's proxy (proxy.scalar.com by default for the web
 * layout) is turned off by an empty proxyUrl, and connect-src 'self' enforces it.
 *
 * Production pages have no console (consoleEnabled false): the docs stay the same, but a partner
 * does not type production secrets into a web page; they try calls on the sandbox's page.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface ReferencePage {
  html: string;
  contentSecurityPolicy: string;
}

// System fonts: Scalar's default fonts (Inter, JetBrains Mono) come from fonts.scalar.com.
const FONTS = [
  ':root {',
  '  --scalar-font: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;',
  '  --scalar-font-code: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;',
  '}',
].join('\n');

/** Scalar's configuration; `content` (the document) is added from the data block in the page. */
function scalarOptions(consoleEnabled: boolean): Record<string, unknown> {
  return {
    withDefaultFonts: false,
    customCss: FONTS,
    // Nothing of Scalar's hosted services: no telemetry, no AI agent, no MCP, no proxy.
    telemetry: false,
    agent: { disabled: true },
    mcp: { disabled: true },
    proxyUrl: '',
    showDeveloperTools: 'never',
    hideClientButton: !consoleEnabled,
    hideTestRequestButton: !consoleEnabled,
    // A secret typed into the console lives in the page only, never in localStorage.
    persistAuth: false,
    documentDownloadType: 'json',
    defaultOpenAllTags: true,
    authentication: { preferredSecurityScheme: 'oauth2' },
  };
}

const INIT_SCRIPT = [
  "var documentElement = document.getElementById('partner-document');",
  "var options = JSON.parse(documentElement.getAttribute('data-options'));",
  'options.content = JSON.parse(documentElement.textContent);',
  "Scalar.createApiReference('#reference', options);",
].join('\n');

let renderer: { script: string; hash: string } | undefined;

/** The page of `document`; its caller keeps it (src/partner/published-document.ts builds it once per origin). */
export function referencePage(document: Record<string, unknown>, options: { consoleEnabled: boolean }): ReferencePage {
  return render(document, JSON.stringify(document), options.consoleEnabled);
}

function render(document: Record<string, unknown>, json: string, consoleEnabled: boolean): ReferencePage {
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
</head>
<body>
<noscript>This page needs JavaScript. The same document is available as <a href="openapi.json">openapi.json</a> and <a href="openapi.yaml">openapi.yaml</a>.</noscript>
<div id="reference"></div>
<script id="partner-document" type="application/json" data-options="${escapeHtml(JSON.stringify(scalarOptions(consoleEnabled)))}">${jsonForScript(json)}</script>
<script>${script}</script>
<script>${INIT_SCRIPT}</script>
</body>
</html>
`;
  const contentSecurityPolicy = [
    "default-src 'none'",
    `script-src '${hash}' '${sha256(INIT_SCRIPT)}'`,
    // Scalar (Vue, Tailwind) writes its styles into <style> elements and style attributes.
    "style-src 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    // The console's token and API requests: this deployment only.
    "connect-src 'self'",
    'worker-src blob:',
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { html, contentSecurityPolicy };
}

function loadRenderer(): { script: string; hash: string } {
  // The package exports no path to its browser bundle; it sits beside the entry point (dist/).
  const bundle = fs.readFileSync(path.join(path.dirname(require.resolve('@scalar/api-reference')), 'browser', 'standalone.js'), 'utf8');
  // The source map is not shipped with the page; without the comment no devtools asks for it.
  const script = bundle.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
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
