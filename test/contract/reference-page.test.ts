/**
 * GET {base_url}/docs: the partner document as a self-contained reference page. What a browser
 * does with it is checked in a real Chromium by `make reference-page-check`; this checks what the
 * service sends: one page that names no other address, the document with this deployment's
 * servers, and a Content-Security-Policy that allows exactly its own inline scripts.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import YAML from 'yaml';
import { TEST_WEBHOOK_KEY } from '../support/factories';
import { API } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { asText } from '../support/text-body';

const contract = YAML.parse(fs.readFileSync(path.join(__dirname, '../../openapi/partner.yaml'), 'utf8')) as {
  info: { version: string };
  paths: Record<string, unknown>;
};

/** Scalar's configuration, carried by the data block's data-options attribute. */
function optionsOf(html: string): Record<string, unknown> {
  const attribute = /id="partner-document" type="application\/json" data-options="([^"]*)"/.exec(html)![1]!;
  return JSON.parse(
    attribute
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&'),
  ) as Record<string, unknown>;
}

const t = useTestApp();
const getPage = (host: string) => request(t.app).get(`${API}/docs`).set('Host', host).buffer(true).parse(asText);

/** The page's <script> elements: attributes and content. */
function scriptsOf(html: string): Array<{ attributes: string; content: string }> {
  return [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)].map((match) => ({ attributes: match[1]!, content: match[2]! }));
}

describe('When anyone opens the API reference page', () => {
  test('then it needs no token and carries the document with servers and token URL set to this deployment', async () => {
    const response = await getPage('partner.test:8443').set('Authorization', 'Bearer sbx_at_not_a_token');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['x-correlation-id']).toEqual(expect.any(String));
    const data = scriptsOf(response.body as string).find((script) => script.attributes.includes('id="partner-document"'));
    const document = JSON.parse(data!.content) as typeof contract & {
      servers: unknown;
      components: { securitySchemes: { oauth2: { flows: { clientCredentials: { tokenUrl: string } } } } };
    };
    expect(document.info.version).toBe(contract.info.version);
    expect(Object.keys(document.paths)).toEqual(Object.keys(contract.paths));
    expect(document.servers).toEqual([{ url: `http://partner.test:8443${API}`, description: expect.any(String) }]);
    expect(document.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl).toBe('http://partner.test:8443/auth/oauth2/token');
  });

  test('then the page is self-contained: its markup loads nothing, and no script is loaded from an address', async () => {
    const html = (await getPage('partner.test')).body as string;
    const markup = html.replace(/<script([^>]*)>[\s\S]*?<\/script>/g, '<script$1></script>');
    expect(markup).not.toMatch(/\s(src|href|srcset|action)=["']?(https?:)?\/\//i);
    expect(markup).not.toMatch(/<script[^>]*\ssrc=/i);
    expect(markup).toContain('<link rel="icon" href="data:,">'); // no favicon request either
    // Scalar's own services stay off: its font host, telemetry, AI agent, MCP and request proxy.
    expect(optionsOf(html)).toMatchObject({
      withDefaultFonts: false,
      telemetry: false,
      agent: { disabled: true },
      mcp: { disabled: true },
      proxyUrl: '',
      persistAuth: false,
    });
  });

  test('then the sandbox page has the request console, and a production page has none', async () => {
    expect(optionsOf((await getPage('partner.test')).body as string)).toMatchObject({ hideTestRequestButton: false, hideClientButton: false });
    const production = await t.anotherApp({
      ENVIRONMENT: 'production',
      PUBLIC_ORIGIN: 'https://api.example.test',
      WEBHOOK_SECRET_KEY: TEST_WEBHOOK_KEY,
    });
    const response = await request(production.app).get(`${API}/docs`).buffer(true).parse(asText);
    expect(response.status).toBe(200);
    expect(optionsOf(response.body as string)).toMatchObject({ hideTestRequestButton: true, hideClientButton: true });
  });

  test('then its Content-Security-Policy allows exactly its two inline scripts and no other origin', async () => {
    const response = await getPage('partner.test');
    const policy = response.headers['content-security-policy'] as string;
    const directives = new Map(
      policy
        .split(';')
        .map((part) => part.trim().split(/\s+/))
        .map(([name, ...values]) => [name!, values]),
    );
    expect(directives.get('default-src')).toEqual(["'none'"]);
    const executable = scriptsOf(response.body as string).filter((script) => !script.attributes.includes('type="application/json"'));
    expect(executable).toHaveLength(2);
    const hashes = executable.map((script) => `'sha256-${createHash('sha256').update(script.content, 'utf8').digest('base64')}'`);
    expect(directives.get('script-src')).toEqual(hashes);
    for (const [name, values] of directives) {
      if (name === 'default-src' || name === 'script-src') continue;
      for (const value of values) expect(["'self'", "'none'", "'unsafe-inline'", 'data:', 'blob:']).toContain(value);
    }
  });

  test('then a document text cannot end its data block early', async () => {
    const html = (await getPage('partner.test')).body as string;
    const data = scriptsOf(html).find((script) => script.attributes.includes('id="partner-document"'))!;
    expect(data.content).not.toContain('<');
  });

  test('then the same deployment gets the same page again, and another host its own servers', async () => {
    const first = await getPage('one.test');
    const again = await getPage('one.test');
    const other = await getPage('two.test');
    expect(again.body).toBe(first.body);
    expect(other.body).not.toBe(first.body);
    expect(other.body as string).toContain('http://two.test/rental-guarantee');
  });
});
