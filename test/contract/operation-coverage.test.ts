/**
 * Every operation of the contract documents has a handler, is routed by the app, and is exercised
 * by at least one test.
 *
 * test/contract/covered-operations.json maps each document's operationIds to the test files that
 * exercise them. This test fails when an operation has no entry (a new operation without a test),
 * when an entry names an operation that no longer exists, and when a listed file does not exist or
 * does not request that operation: its requests are found in its source (and in the helpers it
 * calls) by test/contract/request-sites.ts, and one must match the operation's method and path.
 *
 * After writing the test of a new operation, list it: COVERAGE_SUGGEST=1 makes the failure message
 * print, for every operation, the test files whose requests match it.
 * openapi/back-office.yaml (internal back office) is checked when it exists.
 */
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { loadConfig } from '../../src/config';
import { backOfficeApi } from '../../src/back-office/api/back-office-api';
import { partnerApi } from '../../src/partner/partner-api';
import { RequestSiteFinder, siteMatches, type RequestSite } from './request-sites';
import { ANONYMOUS, asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';

const ROOT = path.resolve(__dirname, '../..');
const LIST_FILE = path.join(__dirname, 'covered-operations.json');
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

interface Operation {
  document: string;
  operationId: string;
  method: string;
  template: string;
  basePath: string;
}

const config = loadConfig({ LOG_LEVEL: 'silent' }) as ReturnType<typeof loadConfig> & { BACK_OFFICE_BASE_PATH?: string };
const DOCUMENTS: Array<{ name: string; basePath: string }> = [
  { name: 'partner.yaml', basePath: config.API_BASE_PATH },
  { name: 'auth.yaml', basePath: config.AUTH_BASE_PATH },
  { name: 'back-office.yaml', basePath: config.BACK_OFFICE_BASE_PATH ?? '/back-office' },
];

function operationsOf(document: string, basePath: string): Operation[] {
  const file = path.join(ROOT, 'openapi', document);
  if (!fs.existsSync(file)) return []; // back-office.yaml may not exist yet
  const doc = YAML.parse(fs.readFileSync(file, 'utf8')) as { paths?: Record<string, Record<string, { operationId?: string }>> };
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      operations.push({
        document,
        operationId: operation.operationId ?? `(no operationId) ${method.toUpperCase()} ${template}`,
        method,
        template,
        basePath,
      });
    }
  }
  return operations;
}

const operations = DOCUMENTS.flatMap((d) => operationsOf(d.name, d.basePath));
const listed = JSON.parse(fs.readFileSync(LIST_FILE, 'utf8')) as Record<string, Record<string, string[]> | string>;

const finder = new RequestSiteFinder(path.join(ROOT, 'test'));
const siteCache = new Map<string, RequestSite[]>();
const sitesOf = (file: string) => {
  let sites = siteCache.get(file);
  if (!sites) siteCache.set(file, (sites = finder.sitesOf(path.join(ROOT, file))));
  return sites;
};

function testFiles(dir = path.join(ROOT, 'test')): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith('.test.ts') ? [path.relative(ROOT, full)] : [];
  });
}

/** For the failure message: the test files whose requests match each operation. */
function suggestions(wanted: Operation[]): string {
  if (!process.env.COVERAGE_SUGGEST) return 'Run with COVERAGE_SUGGEST=1 to see which test files request each operation.';
  const files = testFiles();
  const lines = wanted.map((operation) => {
    const matching = files.filter((file) =>
      sitesOf(file).some((site) => siteMatches(site, operation.method, operation.basePath, operation.template)),
    );
    return `  ${operation.document} ${operation.operationId}: ${matching.length ? JSON.stringify(matching) : 'no test file requests it'}`;
  });
  return `Test files whose requests match:\n${lines.join('\n')}`;
}

describe('Every operation of the contract is exercised by a test', () => {
  test('operationIds are present and unique within each document', () => {
    expect(operations.filter((o) => o.operationId.startsWith('(no operationId)'))).toEqual([]);
    for (const document of DOCUMENTS) {
      const ids = operations.filter((o) => o.document === document.name).map((o) => o.operationId);
      expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
    }
  });

  test('every operation has an entry in covered-operations.json, and every entry an operation', () => {
    const missing = operations.filter(
      (o) => !(typeof listed[o.document] === 'object' && (listed[o.document] as Record<string, string[]>)[o.operationId]?.length),
    );
    const stale = Object.entries(listed)
      .filter(([document]) => !document.startsWith('$'))
      .flatMap(([document, entries]) =>
        Object.keys(entries as Record<string, string[]>)
          .filter((id) => !operations.some((o) => o.document === document && o.operationId === id))
          .map((id) => `${document} ${id}`),
      );
    const message = [
      missing.length
        ? `Operations without a listed test (write one and list it in test/contract/covered-operations.json):\n${missing.map((o) => `  ${o.document} ${o.operationId} (${o.method.toUpperCase()} ${o.template})`).join('\n')}`
        : '',
      stale.length ? `Entries naming no operation of the documents:\n  ${stale.join('\n  ')}` : '',
      missing.length ? suggestions(missing) : '',
    ]
      .filter(Boolean)
      .join('\n');
    expect(message).toBe('');
  });

  test('every listed test file exists and requests its operation', () => {
    const problems: string[] = [];
    for (const operation of operations) {
      const files = (listed[operation.document] as Record<string, string[]> | undefined)?.[operation.operationId] ?? [];
      for (const file of files) {
        if (!file.endsWith('.test.ts') || !fs.existsSync(path.join(ROOT, file))) {
          problems.push(`${operation.operationId}: ${file} is not an existing *.test.ts file`);
        } else if (!sitesOf(file).some((site) => siteMatches(site, operation.method, operation.basePath, operation.template))) {
          problems.push(
            `${operation.operationId}: ${file} makes no ${operation.method.toUpperCase()} ${operation.basePath}${operation.template} request`,
          );
        }
      }
    }
    expect(problems.length ? `${problems.join('\n')}\n${suggestions(operations)}` : '').toBe('');
  });
});

describe('Every operation of the contract has a handler and a route', () => {
  const world = useTestApp();

  test('every operation of partner.yaml and back-office.yaml is declared once, and nothing else is', () => {
    const declared = (document: string, ids: string[]) => {
      const expected = operations
        .filter((o) => o.document === document)
        .map((o) => o.operationId)
        .sort();
      expect([...ids].sort()).toEqual(expected);
    };
    declared(
      'partner.yaml',
      partnerApi(config).operations.map((o) => o.operationId),
    );
    declared(
      'back-office.yaml',
      backOfficeApi(config).operations.map((o) => o.operationId),
    );
  });

  test('every operation of every document is routed by the app (no 404 route_not_found, no 405)', async () => {
    const unrouted: string[] = [];
    for (const operation of operations) {
      const url = `${operation.basePath}${operation.template.replace(/\{[^}]+\}/g, '1')}`;
      const response = await asPartner(world, ANONYMOUS).request(operation.method as 'get', url);
      if (response.status === 405 || response.body?.code === 'route_not_found' || response.body?.code === 'not_implemented') {
        unrouted.push(
          `${operation.document} ${operation.operationId}: ${operation.method.toUpperCase()} ${url} -> ${response.status} ${response.body?.code ?? ''}`,
        );
      }
    }
    expect(unrouted).toEqual([]);
  });
});
