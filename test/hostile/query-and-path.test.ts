/**
 * Hostile query strings and path values, for every operation: page/pageSize that are not
 * integers or repeat, unknown parameters, status and type values outside their enums, malformed
 * CPF/CNPJ filters and dates; path ids that are negative, 0, huge, decimal, non-numeric, unicode,
 * `..` or badly percent-encoded; co-tenant CPF/CNPJ path garbage. Every request is a valid one with
 * exactly one part made hostile: a 4xx in the specification's error shape, and nothing written.
 */
import fc from 'fast-check';
import { documentOperation, errorBodyProblem } from '../support/contract-rules';
import { backOffice } from '../support/back-office';
import { isCleanText, unicodeText } from '../support/hostile-arbitraries';
import { expectRejectedWithoutEffect, startHostileWorld, type HostileWorld } from '../support/hostile-world';
import { OPERATIONS, pathOf, queryString, validRequest, type OperationEntry } from '../support/operation-table';
import { snapshotDifference, takeSnapshot } from '../support/db-snapshot';
import { cpf, createGuarantee } from '../support/factories';

let world: HostileWorld;
beforeAll(async () => {
  world = await startHostileWorld();
});
afterAll(() => world.close());

const RUNS = 30;
const entries = (filter: (entry: OperationEntry) => boolean) => OPERATIONS.filter(filter).map((entry) => [entry.operationId, entry] as const);
const paged = entries((entry) => ['listRentalInsurances', 'listStatementEntries'].includes(entry.operationId));
const dated = entries((entry) => ['listDailySummaries', 'listStatementEntries'].includes(entry.operationId));

function requestWithQuery(entry: OperationEntry, extra: Array<[string, string]>, replace: string[] = []) {
  const request = validRequest(entry, world.target, world.agency.auth.Authorization);
  const base = (entry.query?.() ?? []).filter(([name]) => !replace.includes(name));
  request.path = pathOf(entry, world.target) + queryString([...base, ...extra]);
  return request;
}

/** Strings that are not integers for any reader: NaN or a finite non-integer (huge exponents excluded). */
const notInteger = fc.oneof(
  fc.string({ maxLength: 12 }).filter((text) => {
    const value = Number(text);
    return Number.isNaN(value) || (Number.isFinite(value) && !Number.isInteger(value));
  }),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((value) => !Number.isInteger(value)).map(String),
  fc.constantFrom('', 'one', '1.5', '-0.1', '1,2', '--1', '0x1g', 'NaN', '[]', '{}', 'null', 'true', '١٢', '１', '1 2', '%'),
);

describe.each(paged)('%s: page and pageSize', (_id, entry) => {
  test('values that are not integers are 400 validation_failed naming the parameter', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('page', 'pageSize'), notInteger, async (name, value) => {
        const response = await expectRejectedWithoutEffect(world, requestWithQuery(entry, [[name, value]]), { status: 400, code: 'validation_failed' });
        expect((response.body?.['details'] as string[]).some((detail) => detail.startsWith(`query.${name}`))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  test('a repeated page or pageSize is 400 validation_failed', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('page', 'pageSize'), fc.array(fc.integer({ min: 0, max: 50 }).map(String), { minLength: 2, maxLength: 4 }), async (name, values) => {
        await expectRejectedWithoutEffect(world, requestWithQuery(entry, values.map((value) => [name, value])), { status: 400, code: 'validation_failed' });
      }),
      { numRuns: 10 },
    );
  });
});

// The contract: "Query parameters an operation does not declare are ignored."
describe.each(entries((entry) => entry.method === 'GET'))('%s: unknown query parameters', (_id, entry) => {
  const documented = documentOperation(entry.operationId);
  const declared = new Set(documented.parameterNames);
  const name = fc
    .oneof(fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,20}$/), fc.constantFrom('Page', 'PAGE', 'page_size', 'sort', 'companyId', 'limit', 'offset', 'filter', 'q'))
    .filter((candidate) => !declared.has(candidate));

  test('are ignored: the answer is the one without them, and nothing is written', async () => {
    const plain = await world.send(validRequest(entry, world.target, world.agency.auth.Authorization));
    expect(plain.status).toBe(200);
    await fc.assert(
      fc.asyncProperty(name, fc.oneof(fc.string({ maxLength: 20 }), unicodeText, fc.constant('\u0000')), async (parameter, value) => {
        const request = requestWithQuery(entry, [[parameter, value]]);
        const before = await takeSnapshot(world.t.db);
        const response = await world.send(request);
        expect({ request: request.path, status: response.status, body: response.status >= 300 ? response.text.slice(0, 200) : '' }).toEqual({ request: request.path, status: 200, body: '' });
        expect(snapshotDifference(before, await takeSnapshot(world.t.db))).toEqual([]);
      }),
      { numRuns: 10 },
    );
  });

  test('prototype names and bracket syntax get a declared status (never a 5xx) and write nothing', async () => {
    for (const raw of ['__proto__=1', 'constructor=1', 'toString=1', '__proto__[x]=1', 'a[b][c]=1', 'page[]=1', 'status[]=approved', `${'x'.repeat(3000)}=1`, 'a=1&a=2&a=3', '=1', '&&&', 'a']) {
      const request = validRequest(entry, world.target, world.agency.auth.Authorization);
      request.path += (request.path.includes('?') ? '&' : '?') + raw;
      const before = await takeSnapshot(world.t.db);
      const response = await world.send(request);
      expect({ raw, status: response.status, declared: documented.declaredStatuses.includes(String(response.status)) }).toEqual({
        raw,
        status: response.status < 500 ? response.status : 'not a 5xx',
        declared: true,
      });
      if (response.status >= 400) expect(errorBodyProblem(response)).toBeNull();
      expect(snapshotDifference(before, await takeSnapshot(world.t.db))).toEqual([]);
    }
  });
});

describe.each(entries((entry) => entry.method !== 'GET'))('%s: unknown query parameters', (_id, entry) => {
  test('are ignored: the write is applied as without them (on a guarantee of its own)', async () => {
    const target = await disposableTarget();
    const request = validRequest(entry, target, world.agency.auth.Authorization);
    request.path += `${request.path.includes('?') ? '&' : '?'}xUnknown=1&__proto__=1&a[b]=c&companyId=${encodeURIComponent('other-agency')}`;
    const response = await world.send(request);
    expect({ status: response.status, text: response.status < 300 ? '' : response.text.slice(0, 300) }).toEqual({ status: response.status < 300 ? response.status : '2xx', text: '' });
    world.baseline = await takeSnapshot(world.t.db);
  });
});

/** A guarantee of the world's agency in the state where every write succeeds (approved, one co-tenant). */
async function disposableTarget() {
  const coTenantCpfCnpj = cpf(Math.floor(Math.random() * 900_000_000) + 1);
  const created = await createGuarantee(world.t, world.agency, { coTenants: [{ cpfCnpj: coTenantCpfCnpj, name: 'Disposable' }] });
  await backOffice(world.t).approve(created.id);
  const { version } = await world.t.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(created.id) } });
  return { id: created.id, etag: `W/"${version}"`, coTenantCpfCnpj };
}

describe('listRentalInsurances: filters', () => {
  const entry = OPERATIONS.find((candidate) => candidate.operationId === 'listRentalInsurances')!;

  test('a status outside the enum (alone or among valid ones) is 400 validation_failed', async () => {
    const statuses = ['under_review', 'approved', 'accepted', 'active'];
    const bad = fc.oneof(unicodeText, fc.constantFrom('UNDER_REVIEW', 'Approved', 'under review', 'under_review ', 'null', '', '*', 'approved,accepted')).filter((value) => !statuses.includes(value) && value !== 'under_review');
    await fc.assert(
      fc.asyncProperty(bad, fc.subarray(statuses), async (value, others) => {
        fc.pre(isCleanText(value));
        await expectRejectedWithoutEffect(world, requestWithQuery(entry, [...others.map((status) => ['status', status] as [string, string]), ['status', value]]), {
          status: 400,
          code: 'validation_failed',
        });
      }),
      { numRuns: RUNS },
    );
  });

  test('a tenantCpfCnpj that is not 11 to 18 of [0-9A-Za-z./-] is 400 validation_failed', async () => {
    const bad = fc.oneof(fc.string({ maxLength: 30 }), unicodeText).filter((value) => !/^[0-9A-Za-z./-]{11,18}$/.test(value) && isCleanText(value));
    await fc.assert(
      fc.asyncProperty(bad, async (value) => {
        await expectRejectedWithoutEffect(world, requestWithQuery(entry, [['tenantCpfCnpj', value]]), { status: 400, code: 'validation_failed' });
      }),
      { numRuns: RUNS },
    );
  });

  test('text filters above their maximum length, or empty, are 400 validation_failed', async () => {
    for (const [name, limit] of [
      ['tenantName', 200],
      ['propertyExternalId', 100],
    ] as const) {
      for (const value of ['', 'x'.repeat(limit + 1), '😀'.repeat(limit + 1)]) {
        await expectRejectedWithoutEffect(world, requestWithQuery(entry, [[name, value]]), { status: 400, code: 'validation_failed' });
      }
    }
  });

  test('U+0000 (NUL) in a text filter is a 400 or an empty page, never a 500', async () => {
    for (const name of ['tenantName', 'propertyExternalId', 'tenantCpfCnpj']) {
      const value = name === 'tenantCpfCnpj' ? '5299822472\u00005' : 'Maria\u0000';
      const request = requestWithQuery(entry, [[name, value]]);
      const before = await takeSnapshot(world.t.db);
      const response = await world.send(request);
      expect(snapshotDifference(before, await takeSnapshot(world.t.db))).toEqual([]);
      if (response.status === 200) expect(response.body?.['page']).toMatchObject({ totalElements: 0 });
      else await expectRejectedWithoutEffect(world, request, { status: 400, code: 'validation_failed' });
    }
  });
});

describe.each(dated)('%s: dates', (_id, entry) => {
  const notDate = fc
    .oneof(
      fc.string({ maxLength: 12 }),
      fc.tuple(fc.integer({ min: 1000, max: 9999 }), fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 })).map(
        ([year, month, day]) => `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
      ),
      fc.constantFrom('2026-02-29', '2026-13-01', '2026-00-10', '2026-1-1', '26-01-01', '2026/01/01', '2026-01-01T00:00:00Z', '20260101', '+2026-01-01'),
    )
    .filter((value) => {
      const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
      if (!match) return isCleanText(value);
      const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
      return date.getUTCMonth() !== Number(match[2]) - 1 || date.getUTCDate() !== Number(match[3]);
    });

  test('a startDate or endDate that is not a calendar date is 400 validation_failed', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('startDate', 'endDate'), notDate, async (name, value) => {
        const kept = (entry.query!() as Array<[string, string]>).filter(([other]) => other !== name);
        await expectRejectedWithoutEffect(world, requestWithQuery(entry, [...kept, [name, value]], ['startDate', 'endDate']), { status: 400, code: 'validation_failed' });
      }),
      { numRuns: RUNS },
    );
  });

  test('a missing or repeated date is 400 validation_failed; reversed or longer than 366 days is 400 invalid_date_range', async () => {
    await expectRejectedWithoutEffect(world, requestWithQuery(entry, [['startDate', '2026-01-01']], ['startDate', 'endDate']), { status: 400, code: 'validation_failed' });
    await expectRejectedWithoutEffect(world, requestWithQuery(entry, [['endDate', '2026-01-01']], ['startDate', 'endDate']), { status: 400, code: 'validation_failed' });
    await expectRejectedWithoutEffect(
      world,
      requestWithQuery(entry, [['startDate', '2026-01-01'], ['startDate', '2026-01-02'], ['endDate', '2026-01-31']], ['startDate', 'endDate']),
      { status: 400, code: 'validation_failed' },
    );
    await fc.assert(
      fc.asyncProperty(fc.date({ min: new Date('1900-01-01'), max: new Date('2200-01-01'), noInvalidDate: true }), fc.integer({ min: 1, max: 40_000 }), fc.boolean(), async (start, days, reversed) => {
        const first = start.toISOString().slice(0, 10);
        const second = new Date(start.getTime() + (reversed ? -days : days + 365) * 86_400_000).toISOString().slice(0, 10);
        fc.pre(/^\d{4}-/.test(second));
        await expectRejectedWithoutEffect(world, requestWithQuery(entry, [['startDate', first], ['endDate', second]], ['startDate', 'endDate']), {
          status: 400,
          code: 'invalid_date_range',
        });
      }),
      { numRuns: 15 },
    );
  });

  test('extreme but well-formed dates (year 0000, 0001, 9999) are answered without a 5xx', async () => {
    for (const day of ['0000-01-01', '0001-01-01', '9999-12-31']) {
      const request = requestWithQuery(entry, [['startDate', day], ['endDate', day]], ['startDate', 'endDate']);
      const before = await takeSnapshot(world.t.db);
      const response = await world.send(request);
      expect({ day, status: response.status }).toEqual({ day, status: response.status < 500 ? response.status : 'a 2xx or 4xx' });
      expect(snapshotDifference(before, await takeSnapshot(world.t.db))).toEqual([]);
    }
  });

  if (entry.operationId === 'listStatementEntries') {
    test('a type outside the enum is 400 validation_failed', async () => {
      const bad = fc.oneof(unicodeText, fc.constantFrom('FEE', 'fees', 'charge paid', '', 'null')).filter((value) => isCleanText(value) && !['fee', 'charge_paid'].includes(value));
      await fc.assert(
        fc.asyncProperty(bad, async (value) => {
          await expectRejectedWithoutEffect(world, requestWithQuery(entry, [['type', 'fee'], ['type', value]]), { status: 400, code: 'validation_failed' });
        }),
        { numRuns: 15 },
      );
    });
  }
});

describe.each(entries((entry) => entry.idPath))('%s: path id', (_id, entry) => {
  // Raw path segments (already percent-encoded where needed) that are not a positive integer,
  // or are a positive integer of no guarantee.
  const pathId = fc.oneof(
    fc.integer({ max: 0 }).map(String),
    fc.bigInt({ min: 2n ** 63n, max: 10n ** 40n }).map(String),
    fc.bigInt({ min: 10n ** 12n, max: 2n ** 63n - 1n }).map(String),
    fc.double({ noNaN: true }).filter((value) => !Number.isInteger(value)).map((value) => encodeURIComponent(String(value))),
    fc.stringMatching(/^[A-Za-z_~.-]{1,20}$/),
    unicodeText.filter((text) => text.length > 0 && isCleanText(text)).map((text) => encodeURIComponent(text)),
    fc.constantFrom('..', '.', '%2e%2e', '%2E', '..%2f..', '1%2F2', '1%20', '%201', '1;2', '1,2', '0x1F', '1e3', '+1', '-1', '-0', '00', '0', 'Infinity', 'NaN', 'null', 'undefined', '%EF%BC%91', '%D9%A1', '%C2%A01', '1%00'),
  );

  test('is 404 not_found, exactly like a missing guarantee', async () => {
    await fc.assert(
      fc.asyncProperty(pathId, async (id) => {
        const request = validRequest(entry, { ...world.target, id }, world.agency.auth.Authorization);
        request.path = pathOf(entry, { id, coTenantCpfCnpj: world.target.coTenantCpfCnpj }, true) + queryString(entry.query?.() ?? []);
        await expectRejectedWithoutEffect(world, request, { status: 404, code: 'not_found' });
      }),
      { numRuns: RUNS },
    );
  });

  test('malformed percent-encoding in the id is 404 not_found, never a 500', async () => {
    for (const id of ['%', '%Z', '%ZZ', '%E0%A4%A', '%C0%AF', '1%', '%%31']) {
      const request = validRequest(entry, world.target, world.agency.auth.Authorization);
      request.path = pathOf(entry, { id, coTenantCpfCnpj: world.target.coTenantCpfCnpj }, true);
      await expectRejectedWithoutEffect(world, request, { status: 404, code: 'not_found' });
    }
  });
});

describe.each(entries((entry) => entry.coTenantPath))('%s: path cpfCnpj', (_id, entry) => {
  const send = (cpfCnpj: string) => {
    const request = validRequest(entry, world.target, world.agency.auth.Authorization);
    request.path = pathOf(entry, { id: world.target.id, coTenantCpfCnpj: cpfCnpj }, true);
    return request;
  };

  test('a value that is not a well-formed CPF/CNPJ (shape) is 400 validation_failed', async () => {
    const shapeless = fc
      .oneof(fc.string({ maxLength: 30 }), unicodeText, fc.constantFrom('..', '.', '1', '5299822472', '5299822472512345678', '529 982 247 25', '529_982_247_25', '529.982.247-25!'))
      .filter((value) => value.length > 0 && isCleanText(value) && !/^[0-9A-Za-z./-]{11,18}$/.test(value))
      .map((value) => encodeURIComponent(value));
    await fc.assert(
      fc.asyncProperty(shapeless, async (value) => {
        await expectRejectedWithoutEffect(world, send(value), { status: 400, code: 'validation_failed' });
      }),
      { numRuns: RUNS },
    );
  });

  test('a CPF/CNPJ with wrong check digits is 400 validation_failed', async () => {
    const wrongDigits = fc.integer({ min: 1, max: 999_999_998 }).map((base) => {
      const valid = cpf(base);
      return valid.slice(0, 9) + String((Number(valid[9]) + 1) % 10) + valid[10];
    });
    await fc.assert(
      fc.asyncProperty(wrongDigits, async (value) => {
        await expectRejectedWithoutEffect(world, send(value), { status: 400, code: 'validation_failed' });
      }),
      { numRuns: 10 },
    );
  });

  test("a valid CPF that is not a co-tenant (the tenant's included) is 404 not_found", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 999_999_998 }), async (base) => {
        const value = cpf(base);
        fc.pre(value !== world.target.coTenantCpfCnpj);
        await expectRejectedWithoutEffect(world, send(value), { status: 404, code: 'not_found' });
      }),
      { numRuns: 10 },
    );
    const tenant = (await world.t.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(world.target.id) } })).tenantCpfCnpj;
    await expectRejectedWithoutEffect(world, send(tenant), { status: 404, code: 'not_found' });
  });

  test('malformed percent-encoding in the CPF/CNPJ is a 4xx, never a 500', async () => {
    for (const value of ['%', '%ZZ', '529%2G982247-25', '%E0%A4%A52998224725']) {
      await expectRejectedWithoutEffect(world, send(value), { status: [400, 404], code: ['validation_failed', 'not_found'] });
    }
  });
});

test('the world is unchanged after the whole file', async () => {
  expect(snapshotDifference(world.baseline, await takeSnapshot(world.t.db))).toEqual([]);
});
