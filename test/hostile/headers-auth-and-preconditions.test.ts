/**
 * Hostile request headers, for every operation and every webhook endpoint write: Authorization
 * garbage, Idempotency-Key that is missing, too long, or has characters outside `!`..`~`, If-Match
 * garbage, and X-Correlation-Id garbage sent along. Every request is a valid one with exactly one
 * header made hostile: it must be refused with a 4xx in the specification's error shape (code,
 * message, timestamp, correlationId = X-Correlation-Id) and write nothing.
 */
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { sendableHeaderText } from '../support/hostile-arbitraries';
import { expectRejectedWithoutEffect, useHostileWorld } from '../support/hostile-world';
import { OPERATIONS, type OperationEntry } from '../support/operation-table';
import { entityTagOf, validRequest, type Target } from '../support/operation-requests';
import { WEBHOOK_WRITES, webhookInputProblems, webhookTarget, type WebhookTarget } from '../support/webhook-operations';
import { snapshotDifference, takeSnapshot } from '../support/db-snapshot';

const world = useHostileWorld();
let webhook: WebhookTarget | undefined;
// The agency's webhook endpoint and a pending delivery of it, for the webhook writes; the baseline then includes them.
beforeAll(async () => {
  webhook = await webhookTarget(world.testApp, world.agency);
  world.baseline = await takeSnapshot(world.testApp.db);
});

const RUNS = 30;
const ALL = [...OPERATIONS, ...WEBHOOK_WRITES];
const secured = ALL.filter((entry) => entry.access !== 'public');
const writes = ALL.filter((entry) => entry.method !== 'GET');
const withIfMatch = ALL.filter((entry) => entry.ifMatch);
const WELL_FORMED_CORRELATION = /^[A-Za-z0-9._:-]{1,128}$/;

const target = (): Target => ({ ...world.target, webhook });
const valid = (entry: OperationEntry) => validRequest(entry, target(), world.agency.auth.Authorization);

test('every webhook write of the document has a valid request, If-Match where the document declares it', () => {
  expect(webhookInputProblems()).toEqual([]);
  expect(WEBHOOK_WRITES.filter((entry) => entry.ifMatch).map((entry) => entry.operationId)).toEqual(['patchWebhookEndpoint']);
});

/** An X-Correlation-Id to send along: none, a well-formed one, or garbage. */
const correlation = fc.oneof(
  fc.constant(undefined),
  fc.stringMatching(/^[A-Za-z0-9._:-]{1,128}$/),
  sendableHeaderText({ minLength: 1, maxLength: 200 }).filter((text) => !WELL_FORMED_CORRELATION.test(text.trim())),
);

function withCorrelation<T extends { headers: Record<string, string> }>(request: T, id: string | undefined): T {
  if (id !== undefined) request.headers['X-Correlation-Id'] = id;
  return request;
}

function expectCorrelationKept(sent: string | undefined, received: string | string[] | undefined): void {
  const trimmed = sent?.trim();
  if (trimmed !== undefined && WELL_FORMED_CORRELATION.test(trimmed)) expect(received).toBe(trimmed);
  else expect(received).toMatch(/^[0-9a-f-]{36}$/);
}

describe.each(secured.map((entry) => [entry.operationId, entry] as const))('%s: Authorization', (_id, entry) => {
  const garbage = fc.oneof(
    sendableHeaderText({ maxLength: 80 }),
    sendableHeaderText({ maxLength: 80 }).map((token) => `Bearer ${token}`),
    fc.stringMatching(/^[A-Za-z0-9._~+/-]{1,64}$/).map((token) => `Bearer sbx_${token}`),
    fc.stringMatching(/^[A-Za-z0-9._~+/-]{1,64}$/).map((token) => `Bearer prd_${token}`),
    fc.constantFrom('Bearer', 'Bearer ', 'bearer', 'Basic dXNlcjpwYXNz', `Bearer ${'a'.repeat(5000)}`, 'Bearer a b', 'Bearer "quoted"'),
    // The real token, damaged: one character changed, truncated, or with the other environment's prefix.
    fc.nat().map((at) => {
      const token = world.agency.token;
      const index = at % token.length;
      return `Bearer ${token.slice(0, index)}${token[index] === 'A' ? 'B' : 'A'}${token.slice(index + 1)}`;
    }),
    fc.nat().map((at) => `Bearer ${world.agency.token.slice(0, at % world.agency.token.length)}`),
    fc.constant(undefined).map(() => `Bearer ${world.agency.token.replace(/^sbx_/, 'prd_')}`),
  );

  test('garbage or damaged tokens are 401 unauthorized with a Bearer challenge', async () => {
    await fc.assert(
      fc.asyncProperty(garbage, correlation, async (authorization, correlationId) => {
        const request = withCorrelation(valid(entry), correlationId);
        request.headers['Authorization'] = authorization;
        const response = await expectRejectedWithoutEffect(world, request, { status: 401, code: 'unauthorized' });
        expect(response.headers['www-authenticate']).toMatch(/^Bearer realm="rental-guarantee"(, error="invalid_token")?$/);
        expectCorrelationKept(correlationId, response.headers['x-correlation-id']);
      }),
      { numRuns: RUNS },
    );
  });

  test('no Authorization header is 401 with the challenge without an error attribute', async () => {
    const request = valid(entry);
    delete request.headers['Authorization'];
    const response = await expectRejectedWithoutEffect(world, request, { status: 401, code: 'unauthorized' });
    expect(response.headers['www-authenticate']).toBe('Bearer realm="rental-guarantee"');
  });
});

describe.each(writes.map((entry) => [entry.operationId, entry] as const))('%s: Idempotency-Key', (_id, entry) => {
  const visible = fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code));
  const invalidKey = fc.oneof(
    // Too long: 256 or more visible characters, bare or quoted.
    fc.string({ unit: visible, minLength: 256, maxLength: 600 }),
    fc.string({ unit: visible, minLength: 256, maxLength: 300 }).map((key) => `"${key.replace(/["\\]/g, 'x')}"`),
    // A character outside ! .. ~ inside the key (leading/trailing blanks would be trimmed by HTTP).
    fc
      .tuple(
        fc.string({ unit: visible, minLength: 1, maxLength: 40 }),
        fc.constantFrom(' ', '\t', 'é', 'ÿ', '\u0080', '\u00a0', '  '),
        fc.string({ unit: visible, minLength: 1, maxLength: 40 }),
      )
      .map(([before, bad, after]) => before + bad + after),
    fc.constantFrom('', '""', '" "', 'a, b', '"a b"'),
  );

  test('a malformed key is 400 idempotency_key_invalid', async () => {
    await fc.assert(
      fc.asyncProperty(invalidKey, correlation, async (key, correlationId) => {
        const request = withCorrelation(valid(entry), correlationId);
        request.headers['Idempotency-Key'] = key;
        const response = await expectRejectedWithoutEffect(world, request, { status: 400, code: 'idempotency_key_invalid' });
        expectCorrelationKept(correlationId, response.headers['x-correlation-id']);
      }),
      { numRuns: RUNS },
    );
  });

  test('a missing key is 400 idempotency_key_required; two key headers are one malformed key', async () => {
    const missing = valid(entry);
    delete missing.headers['Idempotency-Key'];
    await expectRejectedWithoutEffect(world, missing, { status: 400, code: 'idempotency_key_required' });
    const doubled = valid(entry) as { method: string; path: string; headers: Record<string, string | string[]>; body?: string };
    doubled.headers['Idempotency-Key'] = [randomUUID(), randomUUID()];
    await expectRejectedWithoutEffect(world, doubled, { status: 400, code: 'idempotency_key_invalid' });
  });
});

describe.each(withIfMatch.map((entry) => [entry.operationId, entry] as const))('%s: If-Match', (_id, entry) => {
  // Without a double quote a value cannot be a list of entity tags.
  const notEntityTags = sendableHeaderText({ minLength: 1, maxLength: 120 }).filter((text) => !text.includes('"') && text.trim().length > 0);
  const brokenTags = fc.constantFrom('*', 'W/*', ' * ', '7', 'W/7', 'W/"7', '"7', 'w/"7"', 'W /"7"', 'W/"7" W/"8"', '"7";', '"", *', 'W/"1", *');
  // Entity tags by RFC 9110 syntax that name no version the service could have: refused either
  // as not-a-version (400 if_match_invalid) or as not the current version (412).
  const nonVersionTags = fc.constantFrom('W/"-1"', 'W/"1.0"', 'W/"1e3"', 'W/"9999999999"', 'W/""', '"abc"', 'W/"v7"');

  test('a value that is not a list of entity tags (or is *) is 400 if_match_invalid', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(notEntityTags, brokenTags), correlation, async (ifMatch, correlationId) => {
        const request = withCorrelation(valid(entry), correlationId);
        request.headers['If-Match'] = ifMatch;
        await expectRejectedWithoutEffect(world, request, { status: 400, code: 'if_match_invalid' });
      }),
      { numRuns: RUNS },
    );
  });

  test('an entity tag that names no version is 400 if_match_invalid or 412', async () => {
    await fc.assert(
      fc.asyncProperty(nonVersionTags, async (ifMatch) => {
        const request = valid(entry);
        request.headers['If-Match'] = ifMatch;
        await expectRejectedWithoutEffect(world, request, { status: [400, 412], code: ['if_match_invalid', 'precondition_failed'] });
      }),
      { numRuns: 10 },
    );
  });

  test('an empty or over-long (> 1024) If-Match is a 400 (schema limits of the parameter)', async () => {
    for (const ifMatch of ['', `${'W/"1", '.repeat(200)}W/"1"`, 'x'.repeat(5000)]) {
      const request = valid(entry);
      request.headers['If-Match'] = ifMatch;
      await expectRejectedWithoutEffect(world, request, { status: 400, code: ['if_match_invalid', 'validation_failed'] });
    }
  });

  test('missing If-Match is 428; stale versions are 412 carrying the current ETag', async () => {
    const missing = valid(entry);
    delete missing.headers['If-Match'];
    await expectRejectedWithoutEffect(world, missing, { status: 428, code: 'precondition_required' });
    const etag = entityTagOf(entry, target());
    const current = Number(/\d+/.exec(etag)![0]);
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.integer({ min: 0, max: 999_999_999 }).filter((version) => version !== current),
          { minLength: 1, maxLength: 5 },
        ),
        fc.boolean(),
        async (versions, weak) => {
          const request = valid(entry);
          request.headers['If-Match'] = versions.map((version) => (weak ? `W/"${version}"` : `"${version}"`)).join(', ');
          const response = await expectRejectedWithoutEffect(world, request, { status: 412, code: 'precondition_failed' });
          expect(response.headers['etag']).toBe(etag);
        },
      ),
      { numRuns: 15 },
    );
  });
});

test('the world is unchanged after the whole file', async () => {
  expect(snapshotDifference(world.baseline, await takeSnapshot(world.testApp.db))).toEqual([]);
});
