/**
 * HEAD of every GET operation of every document (partner, back office, health) answers like the
 * GET without a body: same status and headers, an empty body (RFC 9110 §9.3.2). The operations are
 * read from the documents, so a GET added later is walked too. A path that has a GET lists HEAD in
 * a 405's Allow.
 */
import fs from 'node:fs';
import YAML from 'yaml';
import request from 'supertest';
import { todayInSaoPaulo } from '../../src/database/column-values';
import { addDays } from '../../src/financial/date-range';
import { expectErrorBody } from '../support/error-body';
import { asPartner, API, COLLECTION } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { webhookTarget, type WebhookTarget } from '../support/webhook-operations';
import { newDirector, newStaff, OPS, type Operator } from '../back-office/ops-support';
import { documentsPath, pdfBytes, upload } from '../support/document-files';

// The request log is written in batches (REQUEST_LOG_FLUSH_MS): at the default second, the GET's own
// line could land between the GET and the HEAD of listRequestLog and change its length. At the
// longest interval nothing is written while the file runs (it makes fewer lines than a batch).
const world = useTestApp({ REQUEST_LOG_FLUSH_MS: '60000' }, { agencies: 1 });

interface GetOperation {
  document: string;
  operationId: string;
  path: string;
  scopes: string[];
  requiredQuery: string[];
}

/** Every GET of a document, with its base path, scopes and required query parameters. */
function getOperations(file: string, basePath: string): GetOperation[] {
  const document = YAML.parse(fs.readFileSync(`openapi/${file}`, 'utf8')) as {
    paths: Record<string, Record<string, { operationId: string; security?: Array<Record<string, string[]>>; parameters?: unknown[] }>>;
    components?: { parameters?: Record<string, { name: string; in: string; required?: boolean }> };
  };
  const resolve = (parameter: unknown) => {
    const ref = (parameter as { $ref?: string }).$ref;
    return (ref ? document.components!.parameters![ref.split('/').pop()!] : parameter) as { name: string; in: string; required?: boolean };
  };
  return Object.entries(document.paths).flatMap(([path, item]) =>
    item['get']
      ? [
          {
            document: file,
            operationId: item['get'].operationId,
            path: `${basePath}${path}`,
            scopes: (item['get'].security ?? []).flatMap((requirement) => Object.values(requirement).flat()),
            requiredQuery: (item['get'].parameters ?? [])
              .map(resolve)
              .filter((p) => p.in === 'query' && p.required)
              .map((p) => p.name),
          },
        ]
      : [],
  );
}

const OPERATIONS = [...getOperations('partner.yaml', API), ...getOperations('back-office.yaml', OPS), ...getOperations('health.yaml', '/health')];

let staff: Operator;
let director: Operator;
let guaranteeId: number;
let webhook: WebhookTarget;
let documentId: number;
beforeAll(async () => {
  staff = await newStaff(world);
  director = await newDirector(world, world.agency.companyId);
  guaranteeId = (await asPartner(world).newGuarantee()).id;
  webhook = await webhookTarget(world, world.agency);
  const attached = await upload(world, world.agency, documentsPath(guaranteeId), [{ bytes: pdfBytes(), name: 'renda.pdf' }]);
  documentId = attached.body.documents[0].id as number;
});

/** The operation's path filled in, and a query that makes the GET valid. */
function urlOf(operation: GetOperation): string {
  const path = operation.path
    .replace('{id}', String(guaranteeId))
    .replace('{endpointId}', webhook.endpointId)
    .replace('{deliveryId}', webhook.deliveryId)
    .replace('{credentialId}', world.agency.credentialId)
    .replace('{documentId}', String(documentId));
  const query = new URLSearchParams();
  if (/daily-summaries|statement-entries/.test(path)) {
    query.set('startDate', addDays(todayInSaoPaulo(), -30));
    query.set('endDate', todayInSaoPaulo());
  }
  for (const name of operation.requiredQuery) if (name === 'companyId') query.set(name, world.agency.companyId);
  return query.size > 0 ? `${path}?${query}` : path;
}

function authorizationOf(operation: GetOperation): Record<string, string> {
  if (operation.scopes.length === 0) return {};
  if (operation.scopes.some((scope) => ['ops:credentials:manage', 'ops:agency:read'].includes(scope))) return director.auth;
  if (operation.scopes.some((scope) => scope.startsWith('ops:'))) return staff.auth;
  return world.agency.auth;
}

/** Headers that legitimately differ between two answers (time, the request's id, the quota left). */
const VARYING = new Set(['date', 'x-correlation-id', 'ratelimit', 'connection', 'keep-alive']);
const comparable = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).filter(([name]) => !VARYING.has(name)));

describe('When a client sends HEAD instead of GET', () => {
  test('then the walk covers the GET operations of every document', () => {
    expect(OPERATIONS.length).toBeGreaterThanOrEqual(25);
  });

  test.each(OPERATIONS.map((operation) => [`${operation.document} ${operation.operationId}`, operation] as const))(
    'then %s answers like its GET, without a body',
    async (_name, operation) => {
      const url = urlOf(operation);
      // The same Host and Accept-Encoding on both (each supertest request has its own port, and the
      // client's default encodings may differ by method): the published pages follow both.
      const same = { Host: 'head.test', 'Accept-Encoding': 'gzip, deflate' };
      const get = await request(world.app).get(url).set(authorizationOf(operation)).set(same);
      expect({ url, status: get.status }).toEqual({ url, status: 200 });
      const head = await request(world.app).head(url).set(authorizationOf(operation)).set(same);
      expect(head.status).toBe(get.status);
      expect(comparable(head.headers)).toEqual(comparable(get.headers));
      expect(head.text ?? '').toBe('');
      expect(head.headers['x-correlation-id']).toEqual(expect.any(String));
    },
  );

  test('then HEAD without a token is refused like GET, with the same status and challenge', async () => {
    const get = await request(world.app).get(COLLECTION);
    const head = await request(world.app).head(COLLECTION);
    expect(get.status).toBe(401);
    expect(head.status).toBe(401);
    expect(head.headers['www-authenticate']).toBe(get.headers['www-authenticate']);
    expect(head.text ?? '').toBe('');
  });
});

describe('When a method is not allowed on a path that has a GET', () => {
  test('then Allow lists HEAD beside GET', async () => {
    const response = await asPartner(world).request('put', COLLECTION).send({});
    expectErrorBody(response, 405, 'method_not_allowed');
    expect(response.headers['allow']!.split(/,\s*/).sort()).toEqual(['GET', 'HEAD', 'POST']);
  });
});
