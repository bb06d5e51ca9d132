/**
 * Hostile path values, for every operation that has them: ids that are negative, 0, huge, decimal,
 * non-numeric, unicode, `..` or badly percent-encoded, and co-tenant CPF/CNPJ path garbage. Every
 * request is a valid one with exactly one part made hostile: a 4xx in the specification's error
 * shape, and nothing written.
 */
import fc from 'fast-check';
import { isCleanText, unicodeText } from '../support/hostile-arbitraries';
import { expectRejectedWithoutEffect, useHostileWorld } from '../support/hostile-world';
import { pathOf, queryString, validRequest } from '../support/operation-requests';
import { snapshotDifference, takeSnapshot } from '../support/db-snapshot';
import { cpf } from '../support/factories';
import { entries, RUNS } from './hostile-queries';

const world = useHostileWorld();

describe.each(entries((entry) => entry.idPath))('%s: path id', (_id, entry) => {
  // Raw path segments (already percent-encoded where needed) that are not a positive integer,
  // or are a positive integer of no guarantee.
  const pathId = fc.oneof(
    fc.integer({ max: 0 }).map(String),
    fc.bigInt({ min: 2n ** 63n, max: 10n ** 40n }).map(String),
    fc.bigInt({ min: 10n ** 12n, max: 2n ** 63n - 1n }).map(String),
    fc
      .double({ noNaN: true })
      .filter((value) => !Number.isInteger(value))
      .map((value) => encodeURIComponent(String(value))),
    fc.stringMatching(/^[A-Za-z_~.-]{1,20}$/),
    unicodeText.filter((text) => text.length > 0 && isCleanText(text)).map((text) => encodeURIComponent(text)),
    fc.constantFrom(
      '..',
      '.',
      '%2e%2e',
      '%2E',
      '..%2f..',
      '1%2F2',
      '1%20',
      '%201',
      '1;2',
      '1,2',
      '0x1F',
      '1e3',
      '+1',
      '-1',
      '-0',
      '00',
      '0',
      'Infinity',
      'NaN',
      'null',
      'undefined',
      '%EF%BC%91',
      '%D9%A1',
      '%C2%A01',
      '1%00',
    ),
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
      .oneof(
        fc.string({ maxLength: 30 }),
        unicodeText,
        fc.constantFrom('..', '.', '1', '5299822472', '5299822472512345678', '529 982 247 25', '529_982_247_25', '529.982.247-25!'),
      )
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
    const tenant = (await world.testApp.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(world.target.id) } })).tenantCpfCnpj;
    await expectRejectedWithoutEffect(world, send(tenant), { status: 404, code: 'not_found' });
  });

  test('malformed percent-encoding in the CPF/CNPJ is a 4xx, never a 500', async () => {
    for (const value of ['%', '%ZZ', '529%2G982247-25', '%E0%A4%A52998224725']) {
      await expectRejectedWithoutEffect(world, send(value), { status: [400, 404], code: ['validation_failed', 'not_found'] });
    }
  });
});

test('the world is unchanged after the whole file', async () => {
  expect(snapshotDifference(world.baseline, await takeSnapshot(world.testApp.db))).toEqual([]);
});
