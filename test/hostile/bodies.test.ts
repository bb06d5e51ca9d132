/**
 * Hostile request bodies for every operation that takes one (create, patch, comment, add and patch
 * co-tenant): generated schema violations (wrong types, huge strings, unicode, nulls, deep nesting,
 * arrays where objects are expected, unknown fields, removed required fields), non-object JSON,
 * invalid JSON, duplicated keys, bodies above 100 KB, and strings PostgreSQL cannot store (NUL,
 * lone surrogates). Each request is otherwise valid (auth, key, If-Match of the current version):
 * it must be refused with a 4xx in the specification's error shape and write nothing.
 */
import fc from 'fast-check';
import { documentOperation, requestBodyIsValid } from '../support/contract-rules';
import { guaranteeBody, nextCpf } from '../support/factories';
import { applyMutation, hostileValue, malformedJson, mutation, notObjectJson, pathsOf } from '../support/hostile-arbitraries';
import { expectRejectedWithoutEffect, useHostileWorld } from '../support/hostile-world';
import { OPERATIONS, type OperationEntry } from '../support/operation-table';
import { validRequest } from '../support/operation-requests';
import { snapshotDifference, takeSnapshot } from '../support/db-snapshot';

const world = useHostileWorld();

const RUNS = 60;
const MAX_BODY = 102_400;
const withBody = OPERATIONS.filter((entry) => entry.mediaType);

/** The richest valid body of each operation, so that mutations reach every nested field. */
function richBody(entry: OperationEntry): Record<string, unknown> {
  switch (entry.operationId) {
    case 'createRentalInsurance':
      return guaranteeBody({
        coTenants: [{ cpfCnpj: nextCpf(), name: 'Ana', email: 'ana@example.com', birthDate: '1990-01-31', phoneNumber: '(21) 99876-5432' }],
      });
    case 'patchRentalInsurance':
      return {
        externalId: 'CTR-1',
        tenant: { name: 'Maria', email: 'maria@example.com', birthDate: '1980-02-02', phoneNumber: '(11) 3456-7890', profession: 'Arquiteta' },
        property: {
          externalId: 'IMV-1',
          type: 'house',
          address: { zipCode: '01310100', street: 'Rua A', number: '1', complement: null, neighborhood: 'Centro', city: 'Santos', state: 'SP' },
        },
        rentalAmount: 1234.5,
        condoFee: null,
        propertyTax: 10,
        otherFees: 0,
        setupFee: 99.99,
      };
    case 'createRentalInsuranceComment':
      return { comment: 'A comment.' };
    case 'addCoTenant':
      return { cpfCnpj: nextCpf(), name: 'Ana', email: 'ana@example.com', birthDate: '1990-01-31', phoneNumber: '(21) 99876-5432' };
    case 'patchCoTenant':
      return { name: 'Ana', email: 'ana@example.com', birthDate: '1990-01-31', phoneNumber: '(21) 99876-5432' };
    case 'advanceRentalInsuranceClock':
      return { by: 'P1DT2H' };
    default:
      throw new Error(`no rich body for ${entry.operationId}`);
  }
}

const requestWith = (entry: OperationEntry, bodyText: string) => {
  const request = validRequest(entry, world.target, world.agency.auth.Authorization);
  request.body = bodyText;
  return request;
};

test('the rich bodies are valid for the document (so that each mutation is the only problem)', () => {
  for (const entry of withBody)
    expect({ [entry.operationId]: requestBodyIsValid(entry.operationId, richBody(entry)) }).toEqual({ [entry.operationId]: true });
});

describe.each(withBody.map((entry) => [entry.operationId, entry] as const))('%s', (_id, entry) => {
  test('a body that violates the schema is 400 validation_failed, with details naming an unknown field', async () => {
    await fc.assert(
      fc.asyncProperty(mutation, async (change) => {
        const mutated = applyMutation(richBody(entry), change);
        fc.pre(mutated.body !== undefined && !requestBodyIsValid(entry.operationId, mutated.body));
        const response = await expectRejectedWithoutEffect(world, requestWith(entry, JSON.stringify(mutated.body)), {
          status: 400,
          code: 'validation_failed',
        });
        const details = response.body?.['details'] as string[] | undefined;
        expect(details?.length).toBeGreaterThan(0);
        if (mutated.unknownField) expect(details).toContain(`${mutated.unknownField}: unknown field`);
      }),
      { numRuns: RUNS },
    );
  });

  test('a JSON value that is not an object is 400 validation_failed', async () => {
    await fc.assert(
      fc.asyncProperty(notObjectJson, async (value) => {
        await expectRejectedWithoutEffect(world, requestWith(entry, JSON.stringify(value)), { status: 400, code: 'validation_failed' });
      }),
      { numRuns: 25 },
    );
  });

  test('text that is not JSON is 400 malformed_json', async () => {
    await fc.assert(
      fc.asyncProperty(malformedJson(JSON.stringify(richBody(entry))), async (text) => {
        await expectRejectedWithoutEffect(world, requestWith(entry, text), { status: 400, code: 'malformed_json' });
      }),
      { numRuns: 40 },
    );
  });

  test('with a duplicated key the last value counts: an invalid last value is 400 validation_failed', async () => {
    const valid = richBody(entry);
    const keys = Object.keys(valid);
    await fc.assert(
      fc.asyncProperty(fc.nat(), hostileValue, async (pick, bad) => {
        const key = keys[pick % keys.length]!;
        const candidate = { ...valid, [key]: bad };
        fc.pre(!requestBodyIsValid(entry.operationId, candidate));
        // {"key": <valid>, ...rest, "key": <invalid>}
        const text = `${JSON.stringify(valid).slice(0, -1)},${JSON.stringify(key)}:${JSON.stringify(bad)}}`;
        await expectRejectedWithoutEffect(world, requestWith(entry, text), { status: 400, code: 'validation_failed' });
      }),
      { numRuns: 20 },
    );
  });

  test('a body above 100 KB is 413 payload_too_large, whatever it holds; exactly 100 KB is read', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: MAX_BODY + 1, max: 400_000 }), fc.constantFrom('x', 'é', '😀', '{', '\u0000'), async (size, filler) => {
        const prefix = '{"comment":"';
        const unit = Buffer.byteLength(filler);
        const text = prefix + filler.repeat(Math.ceil((size - prefix.length) / unit)) + '"}';
        await expectRejectedWithoutEffect(world, requestWith(entry, text), { status: 413, code: 'payload_too_large' });
      }),
      { numRuns: 8 },
    );
    // 102,400 bytes exactly: read and refused for what it says (a too long or unknown field), not for its size.
    const exact = `{"comment":"${'x'.repeat(MAX_BODY - 14)}"}`;
    expect(Buffer.byteLength(exact)).toBe(MAX_BODY);
    await expectRejectedWithoutEffect(world, requestWith(entry, exact), { status: 400, code: 'validation_failed' });
  });
});

describe.each(withBody.map((entry) => [entry.operationId, entry] as const))('%s: nesting as deep as 100 KB allows', (_id, entry) => {
  test.each([100, 1_000, 2_000, 5_000, 20_000, 45_000])('%i levels under an unknown field is 400 validation_failed, never a 500', async (depth) => {
    for (const [open, close] of [
      ['[', ']'],
      ['{"a":', '}'],
    ]) {
      const nested = `${open!.repeat(depth)}1${close!.repeat(depth)}`;
      if (nested.length > 100_000) continue;
      const body = JSON.stringify(richBody(entry)).slice(0, -1) + `,"deep":${nested}}`;
      await expectRejectedWithoutEffect(world, requestWith(entry, body), { status: 400, code: 'validation_failed' });
    }
  });
});

describe('Merge patches: null on a field required at creation', () => {
  const patches: Array<[string, unknown]> = [
    ['patchRentalInsurance', { tenant: { name: null } }],
    ['patchRentalInsurance', { tenant: null }],
    ['patchRentalInsurance', { property: null }],
    ['patchRentalInsurance', { property: { type: null } }],
    ['patchRentalInsurance', { property: { address: null } }],
    ['patchRentalInsurance', { property: { address: { city: null, zipCode: null } } }],
    ['patchRentalInsurance', { rentalAmount: null }],
    ['patchRentalInsurance', { tenant: { name: null, cpfCnpj: null } }],
    ['patchCoTenant', { name: null }],
  ];
  test.each(patches.map(([operationId, body]) => [operationId, JSON.stringify(body)] as const))(
    '%s %s is 400 validation_failed',
    async (operationId, text) => {
      const entry = OPERATIONS.find((candidate) => candidate.operationId === operationId)!;
      await expectRejectedWithoutEffect(world, requestWith(entry, text), { status: 400, code: 'validation_failed' });
    },
  );
});

/** Replaces one string inside the rich body by `text`, keeping it within the field's length. */
function withStringAt(body: Record<string, unknown>, pick: number, text: (original: string) => string): { body: unknown; field: string } | null {
  const strings = pathsOf(body).filter(
    (path) => typeof path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], body) === 'string',
  );
  // The free-text fields (names, address parts, comment, externalId): their schema accepts any character.
  const free = strings.filter((path) =>
    /^(name|comment|externalId|street|number|complement|neighborhood|city|profession)$/.test(String(path[path.length - 1])),
  );
  if (free.length === 0) return null;
  const path = free[pick % free.length]!;
  const copy = structuredClone(body);
  const parent = path.slice(0, -1).reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], copy) as Record<string, string>;
  const last = path[path.length - 1] as string;
  parent[last] = text(parent[last]!);
  return { body: copy, field: path.join('.') };
}

// Bodies without free text (a time travel's duration) have no such field to try.
const withFreeText = withBody.filter((entry) => withStringAt(richBody(entry), 0, (original) => original) !== null);
describe.each(withFreeText.map((entry) => [entry.operationId, entry] as const))('%s: text PostgreSQL cannot store', (_id, entry) => {
  test('U+0000 (NUL) inside a free-text field is 400 validation_failed, never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.nat({ max: 5 }), async (pick, at) => {
        const changed = withStringAt(richBody(entry), pick, (original) => `${original.slice(0, at)}\u0000${original.slice(at)}`.slice(0, 20));
        fc.pre(changed !== null);
        await expectRejectedWithoutEffect(world, requestWith(entry, JSON.stringify(changed!.body)), { status: 400, code: 'validation_failed' });
      }),
      { numRuns: 5 },
    );
  });

  test('a lone UTF-16 surrogate (\\ud800) inside a free-text field is 400 validation_failed, never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.constantFrom('\\ud800', '\\udfff', '\\udbff\\u0041'), async (pick, escape) => {
        const changed = withStringAt(richBody(entry), pick, (original) => `${original.slice(0, 5)}@@LONE@@`);
        fc.pre(changed !== null);
        const text = JSON.stringify(changed!.body).replace('@@LONE@@', escape);
        await expectRejectedWithoutEffect(world, requestWith(entry, text), { status: 400, code: 'validation_failed' });
      }),
      { numRuns: 5 },
    );
  });
});

describe('Bodies on operations that take none', () => {
  const bodiless = OPERATIONS.filter((entry) => !entry.mediaType);

  test.each(bodiless.map((entry) => [entry.operationId, entry] as const))('%s: a body above 100 KB is 413 payload_too_large', async (_id, entry) => {
    const request = validRequest(entry, world.target, world.agency.auth.Authorization);
    request.headers['Content-Type'] = 'application/json';
    request.body = `"${'x'.repeat(MAX_BODY + 10)}"`;
    await expectRejectedWithoutEffect(world, request, { status: 413, code: 'payload_too_large' });
  });

  test('every operation that answers 413 declares it in the document', () => {
    // The service reads (and limits) the body of every request, so every operation can answer 413.
    const undeclared = OPERATIONS.filter((entry) => !documentOperation(entry.operationId).declaredStatuses.includes('413')).map(
      (entry) => entry.operationId,
    );
    expect(undeclared).toEqual([]);
  });
});

describe('Duplicated keys whose last value is valid', () => {
  test('are accepted with the last value (comment), and nothing else is written', async () => {
    const entry = OPERATIONS.find((candidate) => candidate.operationId === 'createRentalInsuranceComment')!;
    const before = await takeSnapshot(world.testApp.db);
    const request = requestWith(entry, '{"comment": 12345, "comment": "the last one wins"}');
    const response = await world.send(request);
    expect(response.status).toBe(201);
    expect(response.body?.['comment']).toBe('the last one wins');
    const difference = snapshotDifference(before, await takeSnapshot(world.testApp.db));
    // A comment may also open a row (shard) of the agency's usage counters (the daily comment quota,
    // the stored write responses of the hour); its event (rental_insurance.comment_added) is written
    // with it (the outbox).
    const counters = ['comment_quota_usage', 'idempotency_usage'];
    const tables = difference.map((line) => line.split(':')[0]).filter((table) => !counters.includes(table!));
    expect(tables).toEqual(['events', 'history_entries', 'idempotency_records']);
    world.baseline = await takeSnapshot(world.testApp.db);
  });
});
