/** The static request finder credits a test file only with the requests it really makes. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RequestSiteFinder, siteMatches, WILDCARD } from './request-sites';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'request-sites-'));
  fs.mkdirSync(path.join(dir, 'support'));
  fs.writeFileSync(
    path.join(dir, 'support', 'client.ts'),
    `import request from 'supertest';
export const API = '/rental-guarantee';
export const COLLECTION = \`\${API}/v1/rental-insurances\`;
export const itemPath = (id: number | string) => \`\${COLLECTION}/\${id}\`;
export function client(app: unknown) {
  const base = COLLECTION;
  const write = (method: 'post' | 'patch' | 'delete', suffix: string) => request(app)[method](\`\${base}\${suffix}\`);
  return {
    get: (id: number) => request(app).get(itemPath(id)),
    history: (id: number) => request(app).get(\`\${base}/\${id}/history\`),
    accept: (id: number) => write('post', \`/\${id}/accept\`),
    remove: (id: number, cpf: string) => write('delete', \`/\${id}/co-tenants/\${encodeURIComponent(cpf)}\`),
  };
}
export function withQuery(path: string, query: Record<string, string>) {
  const search = new URLSearchParams(query).toString();
  return search ? \`\${path}?\${search}\` : path;
}
export function financial(name: string) {
  const names: Record<string, string> = { balance: 'balance' };
  return names[name];
}
export function pages(app: unknown) {
  return {
    list: (query: Record<string, string> = {}) => request(app).get(withQuery(COLLECTION, query)),
    signatures: (id: number) => request(app).get(withQuery(\`\${COLLECTION}/\${id}/signatures\`, { page: '0' })),
    balance: () => request(app).get(\`\${API}/v1/financial/\${financial('balance')}\`),
  };
}
export function useReviewer(app: unknown) {
  const reviewer = { name: 'Ana' };
  return { ops: client(app), reviewer };
}
export async function createOne(app: unknown) {
  return request(app).post(COLLECTION).send({});
}
`,
  );
  fs.writeFileSync(
    path.join(dir, 'a.test.ts'),
    `import request from 'supertest';
import { API, client, createOne, pages } from './support/client';
let api: ReturnType<typeof client>;
const app = {};
beforeAll(() => { api = client(app); });
test('x', async () => {
  await createOne(app);
  await api.accept(7);
  await client(app).remove(7, '111.444.777-35');
  await pages(app).list({ status: 'approved' });
  await pages(app).signatures(7);
  await pages(app).balance();
  for (const name of ['balance', 'daily-summaries']) await request(app).get(\`\${API}/v1/financial/\${name}\`);
  await request(app).get(\`\${API}/v1/financial/statement-entries?startDate=2026-01-01&endDate=2026-01-31\`);
});
`,
  );
  fs.writeFileSync(
    path.join(dir, 'b.test.ts'),
    `import { useReviewer } from './support/client';
const { ops } = useReviewer({});
const held = useReviewer({});
test('y', async () => {
  await ops.history(7);
  await held.ops.get(7);
});
`,
  );
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const credited = (file: string, method: string, template: string) =>
  new RequestSiteFinder(dir).sitesOf(path.join(dir, file)).some((site) => siteMatches(site, method, '/rental-guarantee', template));

describe('When the request finder reads a test file', () => {
  test('then requests made directly, through imported helpers and through the methods of a returned client count', () => {
    expect(credited('a.test.ts', 'post', '/v1/rental-insurances')).toBe(true);
    expect(credited('a.test.ts', 'post', '/v1/rental-insurances/{id}/accept')).toBe(true);
    expect(credited('a.test.ts', 'delete', '/v1/rental-insurances/{id}/co-tenants/{cpfCnpj}')).toBe(true);
    expect(credited('a.test.ts', 'get', '/v1/financial/statement-entries')).toBe(true);
  });

  test('then a path built by a helper with statements counts through what the helper returns', () => {
    expect(credited('a.test.ts', 'get', '/v1/rental-insurances')).toBe(true);
    expect(credited('a.test.ts', 'get', '/v1/rental-insurances/{id}/signatures')).toBe(true);
  });

  test('then client methods the file never calls, other methods and paths built from unknown values do not count', () => {
    expect(credited('a.test.ts', 'get', '/v1/rental-insurances/{id}')).toBe(false);
    expect(credited('a.test.ts', 'get', '/v1/rental-insurances/{id}/history')).toBe(false);
    expect(credited('a.test.ts', 'get', '/v1/rental-insurances/{id}/accept')).toBe(false);
    // the loop variable could be anything: a fixed segment is never matched by an unknown value
    expect(credited('a.test.ts', 'get', '/v1/financial/balance')).toBe(false);
    // nor is a segment a helper returns from a lookup: the request is found, its last segment unknown
    expect(credited('a.test.ts', 'get', '/v1/financial/{name}')).toBe(true);
  });

  test("then a client taken out of a helper's object, by destructuring or by property, counts", () => {
    expect(credited('b.test.ts', 'get', '/v1/rental-insurances/{id}/history')).toBe(true);
    expect(credited('b.test.ts', 'get', '/v1/rental-insurances/{id}')).toBe(true);
    expect(credited('b.test.ts', 'post', '/v1/rental-insurances/{id}/accept')).toBe(false);
  });

  test('then a wildcard stands only for a path parameter', () => {
    const site = { method: 'get', path: `/rental-guarantee/v1/${WILDCARD}`, where: '' };
    expect(siteMatches(site, 'GET', '/rental-guarantee', '/v1/{id}')).toBe(true);
    expect(siteMatches(site, 'GET', '/rental-guarantee', '/v1/balance')).toBe(false);
    expect(siteMatches(site, 'GET', '/back-office', '/v1/{id}')).toBe(false);
  });
});
