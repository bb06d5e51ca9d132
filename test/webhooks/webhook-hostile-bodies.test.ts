/**
 * Hostile bodies on the two webhook endpoint writes that take one (register, change): generated
 * schema violations, non-object JSON and text that is not JSON, each in an otherwise valid request
 * (auth, key, If-Match of the current version). Each must be refused with 400 in the error shape
 * and write nothing: no table's row count moves and the endpoint keeps its version.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { requestBodyIsValid } from '../support/contract-rules';
import { applyMutation, malformedJson, mutation, notObjectJson } from '../support/hostile-arbitraries';
import { expectRejectedWithoutEffect, useHostileWorld } from '../support/hostile-world';
import { API } from '../support/partner-api';
import { ALL_TYPES } from './webhook-support';

const world = useHostileWorld();
const RUNS = 40;
const URL_OF_RECEIVER = 'http://127.0.0.1:9/hooks';

interface BodyOperation {
  operationId: 'createWebhookEndpoint' | 'patchWebhookEndpoint';
  method: 'POST' | 'PATCH';
  mediaType: string;
  richBody: Record<string, unknown>;
}

const OPERATIONS: BodyOperation[] = [
  {
    operationId: 'createWebhookEndpoint',
    method: 'POST',
    mediaType: 'application/json',
    richBody: { url: URL_OF_RECEIVER, description: 'ERP hooks', eventTypes: [...ALL_TYPES] },
  },
  {
    operationId: 'patchWebhookEndpoint',
    method: 'PATCH',
    mediaType: 'application/merge-patch+json',
    richBody: { url: URL_OF_RECEIVER, description: null, eventTypes: [ALL_TYPES[0]], enabled: false },
  },
];

let endpoint: { id: string; etag: string };

beforeAll(async () => {
  const created = await world.send({
    method: 'POST',
    path: `${API}/v1/webhook-endpoints`,
    headers: { ...world.agency.auth, 'Idempotency-Key': randomUUID(), 'Content-Type': 'application/json' },
    body: JSON.stringify({ url: URL_OF_RECEIVER, eventTypes: [ALL_TYPES[0]] }),
  });
  if (created.status !== 201) throw new Error(`register: ${created.status} ${created.text}`);
  endpoint = { id: created.body!['id'] as string, etag: created.headers['etag'] as string };
});

const requestWith = (operation: BodyOperation, bodyText: string) => ({
  method: operation.method,
  path: operation.method === 'POST' ? `${API}/v1/webhook-endpoints` : `${API}/v1/webhook-endpoints/${endpoint.id}`,
  headers: {
    ...world.agency.auth,
    'Idempotency-Key': randomUUID(),
    'Content-Type': operation.mediaType,
    ...(operation.method === 'PATCH' ? { 'If-Match': endpoint.etag } : {}),
  },
  body: bodyText,
});

/** The endpoint's row is not counted by the snapshot's row counts: its version must not move either. */
async function expectEndpointUnchanged(): Promise<void> {
  const row = await world.testApp.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
  expect(`W/"${row.version}"`).toBe(endpoint.etag);
}

test('the rich bodies are valid for the document (so that each mutation is the only problem)', () => {
  for (const operation of OPERATIONS) {
    expect({ [operation.operationId]: requestBodyIsValid(operation.operationId, operation.richBody) }).toEqual({ [operation.operationId]: true });
  }
});

describe.each(OPERATIONS.map((operation) => [operation.operationId, operation] as const))('%s', (_id, operation) => {
  test('a body that violates the schema is 400 validation_failed, with details, and writes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(mutation, async (change) => {
        const mutated = applyMutation(operation.richBody, change);
        fc.pre(mutated.body !== undefined && !requestBodyIsValid(operation.operationId, mutated.body));
        const response = await expectRejectedWithoutEffect(world, requestWith(operation, JSON.stringify(mutated.body)), {
          status: 400,
          code: 'validation_failed',
        });
        expect((response.body?.['details'] as string[] | undefined)?.length).toBeGreaterThan(0);
        if (mutated.unknownField) expect(response.body?.['details']).toContain(`${mutated.unknownField}: unknown field`);
      }),
      { numRuns: RUNS },
    );
    await expectEndpointUnchanged();
  });

  test('a JSON value that is not an object is 400 validation_failed', async () => {
    await fc.assert(
      fc.asyncProperty(notObjectJson, async (value) => {
        await expectRejectedWithoutEffect(world, requestWith(operation, JSON.stringify(value)), { status: 400, code: 'validation_failed' });
      }),
      { numRuns: 20 },
    );
    await expectEndpointUnchanged();
  });

  test('text that is not JSON is 400 malformed_json', async () => {
    await fc.assert(
      fc.asyncProperty(malformedJson(JSON.stringify(operation.richBody)), async (text) => {
        await expectRejectedWithoutEffect(world, requestWith(operation, text), { status: 400, code: 'malformed_json' });
      }),
      { numRuns: 20 },
    );
    await expectEndpointUnchanged();
  });
});
