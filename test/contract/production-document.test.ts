/**
 * Issue 34 item 7: production's published document says nothing of the sandbox-only operations,
 * in `openapi.json`, `openapi.yaml` and the reference page alike: not their paths, operationIds,
 * tags or schemas (marked `x-sandbox-only`), and not a line of the prose that describes them
 * (marked `<!-- sandbox-only -->` in any description). What to look for is read from the document
 * itself, so a sandbox-only operation or passage added later is checked without a line here. The
 * sandbox's document keeps them all.
 */
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import YAML from 'yaml';
import { TEST_WEBHOOK_KEY } from '../support/factories';
import { API } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { asText } from '../support/text-body';

type Json = Record<string, unknown>;
const source = fs.readFileSync(path.join(__dirname, '..', '..', 'openapi', 'partner.yaml'), 'utf8');
const contract = YAML.parse(source) as { paths: Record<string, Record<string, Json>>; tags: Json[]; components: { schemas: Record<string, Json> } };

const marked = (value: Json | undefined) => value?.['x-sandbox-only'] === true;

/** Names that only the sandbox-only parts carry. */
const names = [
  ...Object.entries(contract.paths).flatMap(([route, item]) =>
    Object.values(item)
      .filter(marked)
      .flatMap((operation) => [route, String(operation['operationId'])]),
  ),
  ...contract.tags.filter(marked).map((tag) => `"${String(tag['name'])}"`),
  ...Object.entries(contract.components.schemas)
    .filter(([, schema]) => marked(schema))
    .map(([name]) => name),
  'x-sandbox-only',
  'sandbox-only -->',
];

/**
 * Every line of the marked prose that the rest of the document does not also hold (a table's
 * header row may be in both; a table's delimiter row is too short to say anything): none may be
 * published.
 */
const MARKED = /<!-- sandbox-only -->([\s\S]*?)<!-- \/sandbox-only -->/g;
const unmarked = JSON.stringify(contract).replace(MARKED, '');
const passages = [...JSON.stringify(contract).matchAll(MARKED)]
  .flatMap((match) => JSON.parse(`"${match[1]}"`).split('\n'))
  .map((line: string) => line.trim())
  .filter((line: string) => line.length > 20 && !unmarked.includes(JSON.stringify(line).slice(1, -1)));

const production = useTestApp({ ENVIRONMENT: 'production', PUBLIC_ORIGIN: 'https://api.example.test', WEBHOOK_SECRET_KEY: TEST_WEBHOOK_KEY });
const sandbox = useTestApp();

async function published(app: Parameters<typeof request>[0]): Promise<Record<string, string>> {
  const text = async (url: string) => (await request(app).get(`${API}${url}`).buffer(true).parse(asText)).body as string;
  return { json: await text('/openapi.json'), yaml: await text('/openapi.yaml'), html: await text('/docs') };
}

/** How a line of prose reads inside each published form: a JSON string (also the page's data block, `<` escaped) or YAML text. */
const forms = (line: string) => [JSON.stringify(line).slice(1, -1), JSON.stringify(line).slice(1, -1).replace(/</g, '\\u003c'), line];

test('the document has sandbox-only parts to look for', () => {
  expect(names.length).toBeGreaterThan(4);
  expect(passages.length).toBeGreaterThan(3);
});

test('When production publishes its document, then its JSON, YAML and reference page name no sandbox-only operation and hold none of their prose', async () => {
  const pages = await published(production.app);
  for (const [kind, text] of Object.entries(pages)) {
    expect({ kind, names: names.filter((name) => text.includes(name)) }).toEqual({ kind, names: [] });
    // YAML may fold a long line: its text is compared through the parsed document instead.
    const readable = kind === 'yaml' ? JSON.stringify(YAML.parse(text)) : text;
    expect({ kind, passages: passages.filter((line) => forms(line).some((form) => readable.includes(form))) }).toEqual({ kind, passages: [] });
  }
  expect(pages['html']).not.toMatch(/time travel/i);
});

test('When the sandbox publishes its document, then the sandbox-only operations and their prose are there', async () => {
  const pages = await published(sandbox.app);
  const json = pages['json']!;
  expect(names.filter((name) => !json.includes(name) && name !== '"Sandbox"')).toEqual([]);
  expect(passages.filter((line) => !json.includes(JSON.stringify(line).slice(1, -1)))).toEqual([]);
});
