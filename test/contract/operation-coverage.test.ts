/**
 * Every operation of the contract documents has a handler and is routed by the app. That every
 * operation is also exercised by a test is proved by the suite itself: each in-process app tallies
 * the operations it answered with success (test/support/operation-tally.ts), and `make test` fails
 * when an operation of the documents is missing from the tally.
 */
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { loadConfig } from '../../src/config';
import { backOfficeApi } from '../../src/back-office/api/back-office-api';
import { consoleApi } from '../../src/console/console-api';
import { partnerApi } from '../../src/partner/partner-api';
import { ANONYMOUS, asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';

const ROOT = path.resolve(__dirname, '../..');
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

interface Operation {
  document: string;
  operationId: string;
  method: string;
  template: string;
  basePath: string;
}

const config = loadConfig({ LOG_LEVEL: 'silent' });
const DOCUMENTS: Array<{ name: string; basePath: string }> = [
  { name: 'partner.yaml', basePath: config.API_BASE_PATH },
  { name: 'auth.yaml', basePath: config.AUTH_BASE_PATH },
  { name: 'back-office.yaml', basePath: config.BACK_OFFICE_BASE_PATH },
  { name: 'console.yaml', basePath: `${config.CONSOLE_BASE_PATH}/api` },
];

function operationsOf(document: string, basePath: string): Operation[] {
  const doc = YAML.parse(fs.readFileSync(path.join(ROOT, 'openapi', document), 'utf8')) as {
    paths?: Record<string, Record<string, { operationId?: string }>>;
  };
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

test('operationIds are present and unique within each document', () => {
  expect(operations.filter((o) => o.operationId.startsWith('(no operationId)'))).toEqual([]);
  for (const document of DOCUMENTS) {
    const ids = operations.filter((o) => o.document === document.name).map((o) => o.operationId);
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
  }
});

describe('Every operation of the contract has a handler and a route', () => {
  const world = useTestApp();

  test('every operation of partner.yaml, back-office.yaml and console.yaml is declared once, and nothing else is', () => {
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
    declared(
      'console.yaml',
      consoleApi(config, world.db).operations.map((o) => o.operationId),
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
    // One request per operation of four documents, one after the other: on a loaded machine
    // (the suite's other workers) that outlasts jest's 30 s without anything being wrong.
  }, 120_000);
});
