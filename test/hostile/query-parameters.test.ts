/**
 * Hostile query strings, for every operation: page/pageSize that are not integers or repeat, and
 * unknown parameters (ignored, or a declared status for prototype names and brackets; on writes,
 * ignored too). Every request is a valid one with exactly one part made hostile: a 4xx in the
 * specification's error shape, and nothing written.
 */
import fc from 'fast-check';
import { documentOperation, errorBodyProblem } from '../support/contract-rules';
import { backOffice } from '../support/back-office';
import { unicodeText } from '../support/hostile-arbitraries';
import { expectRejectedWithoutEffect, useHostileWorld } from '../support/hostile-world';
import { validRequest } from '../support/operation-requests';
import { snapshotDifference, takeSnapshot } from '../support/db-snapshot';
import { cpf } from '../support/factories';
import { asPartner } from '../support/partner-api';
import { entries, notInteger, paged, requestWithQuery, RUNS } from './hostile-queries';

const world = useHostileWorld();

describe.each(paged)('%s: page and pageSize', (_id, entry) => {
  test('values that are not integers are 400 validation_failed naming the parameter', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('page', 'pageSize'), notInteger, async (name, value) => {
        const response = await expectRejectedWithoutEffect(world, requestWithQuery(world, entry, [[name, value]]), {
          status: 400,
          code: 'validation_failed',
        });
        expect((response.body?.['details'] as string[]).some((detail) => detail.startsWith(`query.${name}`))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  test('a repeated page or pageSize is 400 validation_failed', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('page', 'pageSize'),
        fc.array(fc.integer({ min: 0, max: 50 }).map(String), { minLength: 2, maxLength: 4 }),
        async (name, values) => {
          await expectRejectedWithoutEffect(
            world,
            requestWithQuery(
              world,
              entry,
              values.map((value) => [name, value]),
            ),
            { status: 400, code: 'validation_failed' },
          );
        },
      ),
      { numRuns: 10 },
    );
  });
});

// The contract: "Query parameters an operation does not declare are ignored."
describe.each(entries((entry) => entry.method === 'GET'))('%s: unknown query parameters', (_id, entry) => {
  const documented = documentOperation(entry.operationId);
  const declared = new Set(documented.parameterNames);
  const name = fc
    .oneof(
      fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,20}$/),
      fc.constantFrom('Page', 'PAGE', 'page_size', 'sort', 'companyId', 'limit', 'offset', 'filter', 'q'),
    )
    .filter((candidate) => !declared.has(candidate));

  test('are ignored: the answer is the one without them, and nothing is written', async () => {
    const plain = await world.send(validRequest(entry, world.target, world.agency.auth.Authorization));
    expect(plain.status).toBe(200);
    await fc.assert(
      fc.asyncProperty(name, fc.oneof(fc.string({ maxLength: 20 }), unicodeText, fc.constant('\u0000')), async (parameter, value) => {
        const request = requestWithQuery(world, entry, [[parameter, value]]);
        const before = await takeSnapshot(world.testApp.db);
        const response = await world.send(request);
        expect({ request: request.path, status: response.status, body: response.status >= 300 ? response.text.slice(0, 200) : '' }).toEqual({
          request: request.path,
          status: 200,
          body: '',
        });
        expect(snapshotDifference(before, await takeSnapshot(world.testApp.db))).toEqual([]);
      }),
      { numRuns: 10 },
    );
  });

  test('prototype names and bracket syntax get a declared status (never a 5xx) and write nothing', async () => {
    for (const raw of [
      '__proto__=1',
      'constructor=1',
      'toString=1',
      '__proto__[x]=1',
      'a[b][c]=1',
      'page[]=1',
      'status[]=approved',
      `${'x'.repeat(3000)}=1`,
      'a=1&a=2&a=3',
      '=1',
      '&&&',
      'a',
    ]) {
      const request = validRequest(entry, world.target, world.agency.auth.Authorization);
      request.path += (request.path.includes('?') ? '&' : '?') + raw;
      const before = await takeSnapshot(world.testApp.db);
      const response = await world.send(request);
      expect({ raw, status: response.status, declared: documented.declaredStatuses.includes(String(response.status)) }).toEqual({
        raw,
        status: response.status < 500 ? response.status : 'not a 5xx',
        declared: true,
      });
      if (response.status >= 400) expect(errorBodyProblem(response)).toBeNull();
      expect(snapshotDifference(before, await takeSnapshot(world.testApp.db))).toEqual([]);
    }
  });
});

describe.each(entries((entry) => entry.method !== 'GET'))('%s: unknown query parameters', (_id, entry) => {
  test('are ignored: the write is applied as without them (on a guarantee of its own)', async () => {
    const target = await disposableTarget();
    const request = validRequest(entry, target, world.agency.auth.Authorization);
    request.path += `${request.path.includes('?') ? '&' : '?'}xUnknown=1&__proto__=1&a[b]=c&companyId=${encodeURIComponent('other-agency')}`;
    const response = await world.send(request);
    expect({ status: response.status, text: response.status < 300 ? '' : response.text.slice(0, 300) }).toEqual({
      status: response.status < 300 ? response.status : '2xx',
      text: '',
    });
    world.baseline = await takeSnapshot(world.testApp.db);
  });
});

/** A guarantee of the world's agency in the state where every write succeeds (approved, one co-tenant). */
async function disposableTarget() {
  const coTenantCpfCnpj = cpf(Math.floor(Math.random() * 900_000_000) + 1);
  const created = await asPartner(world.testApp).newGuarantee({ coTenants: [{ cpfCnpj: coTenantCpfCnpj, name: 'Disposable' }] });
  await backOffice(world.testApp).approve(created.id);
  const { version } = await world.testApp.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(created.id) } });
  return { id: created.id, etag: `W/"${version}"`, coTenantCpfCnpj };
}

test('the world is unchanged after the whole file', async () => {
  expect(snapshotDifference(world.baseline, await takeSnapshot(world.testApp.db))).toEqual([]);
});
