/**
 * Hostile filters and dates: status values outside their enum, malformed CPF/CNPJ filters, text
 * filters too long, empty or holding NUL, and dates that are not calendar dates, are missing,
 * repeated, reversed, too far apart or extreme. Every request is a valid one with exactly one part
 * made hostile: a 4xx in the specification's error shape, and nothing written.
 */
import fc from 'fast-check';
import { isCleanText, unicodeText } from '../support/hostile-arbitraries';
import { expectRejectedWithoutEffect, useHostileWorld } from '../support/hostile-world';
import { OPERATIONS } from '../support/operation-table';
import { snapshotDifference, takeSnapshot } from '../support/db-snapshot';
import { dated, requestWithQuery, RUNS } from './hostile-queries';

const world = useHostileWorld();

describe('listRentalInsurances: filters', () => {
  const entry = OPERATIONS.find((candidate) => candidate.operationId === 'listRentalInsurances')!;

  test('a status outside the enum (alone or among valid ones) is 400 validation_failed', async () => {
    const statuses = ['under_review', 'approved', 'accepted', 'active'];
    const bad = fc
      .oneof(unicodeText, fc.constantFrom('UNDER_REVIEW', 'Approved', 'under review', 'under_review ', 'null', '', '*', 'approved,accepted'))
      .filter((value) => !statuses.includes(value) && value !== 'under_review');
    await fc.assert(
      fc.asyncProperty(bad, fc.subarray(statuses), async (value, others) => {
        fc.pre(isCleanText(value));
        await expectRejectedWithoutEffect(
          world,
          requestWithQuery(world, entry, [...others.map((status) => ['status', status] as [string, string]), ['status', value]]),
          {
            status: 400,
            code: 'validation_failed',
          },
        );
      }),
      { numRuns: RUNS },
    );
  });

  test('a tenantCpfCnpj that is not 11 to 18 of [0-9A-Za-z./-] is 400 validation_failed', async () => {
    const bad = fc.oneof(fc.string({ maxLength: 30 }), unicodeText).filter((value) => !/^[0-9A-Za-z./-]{11,18}$/.test(value) && isCleanText(value));
    await fc.assert(
      fc.asyncProperty(bad, async (value) => {
        await expectRejectedWithoutEffect(world, requestWithQuery(world, entry, [['tenantCpfCnpj', value]]), {
          status: 400,
          code: 'validation_failed',
        });
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
        await expectRejectedWithoutEffect(world, requestWithQuery(world, entry, [[name, value]]), { status: 400, code: 'validation_failed' });
      }
    }
  });

  test('U+0000 (NUL) in a text filter is a 400 or an empty page, never a 500', async () => {
    for (const name of ['tenantName', 'propertyExternalId', 'tenantCpfCnpj']) {
      const value = name === 'tenantCpfCnpj' ? '5299822472\u00005' : 'Maria\u0000';
      const request = requestWithQuery(world, entry, [[name, value]]);
      const before = await takeSnapshot(world.testApp.db);
      const response = await world.send(request);
      expect(snapshotDifference(before, await takeSnapshot(world.testApp.db))).toEqual([]);
      if (response.status === 200) expect(response.body?.['page']).toMatchObject({ totalElements: 0 });
      else await expectRejectedWithoutEffect(world, request, { status: 400, code: 'validation_failed' });
    }
  });
});

describe.each(dated)('%s: dates', (_id, entry) => {
  const notDate = fc
    .oneof(
      fc.string({ maxLength: 12 }),
      fc
        .tuple(fc.integer({ min: 1000, max: 9999 }), fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 }))
        .map(([year, month, day]) => `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`),
      fc.constantFrom(
        '2026-02-29',
        '2026-13-01',
        '2026-00-10',
        '2026-1-1',
        '26-01-01',
        '2026/01/01',
        '2026-01-01T00:00:00Z',
        '20260101',
        '+2026-01-01',
      ),
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
        await expectRejectedWithoutEffect(world, requestWithQuery(world, entry, [...kept, [name, value]], ['startDate', 'endDate']), {
          status: 400,
          code: 'validation_failed',
        });
      }),
      { numRuns: RUNS },
    );
  });

  test('a missing or repeated date is 400 validation_failed; reversed or longer than 366 days is 400 invalid_date_range', async () => {
    await expectRejectedWithoutEffect(world, requestWithQuery(world, entry, [['startDate', '2026-01-01']], ['startDate', 'endDate']), {
      status: 400,
      code: 'validation_failed',
    });
    await expectRejectedWithoutEffect(world, requestWithQuery(world, entry, [['endDate', '2026-01-01']], ['startDate', 'endDate']), {
      status: 400,
      code: 'validation_failed',
    });
    await expectRejectedWithoutEffect(
      world,
      requestWithQuery(
        world,
        entry,
        [
          ['startDate', '2026-01-01'],
          ['startDate', '2026-01-02'],
          ['endDate', '2026-01-31'],
        ],
        ['startDate', 'endDate'],
      ),
      { status: 400, code: 'validation_failed' },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.date({ min: new Date('1900-01-01'), max: new Date('2200-01-01'), noInvalidDate: true }),
        fc.integer({ min: 1, max: 40_000 }),
        fc.boolean(),
        async (start, days, reversed) => {
          const first = start.toISOString().slice(0, 10);
          const second = new Date(start.getTime() + (reversed ? -days : days + 365) * 86_400_000).toISOString().slice(0, 10);
          fc.pre(/^\d{4}-/.test(second));
          await expectRejectedWithoutEffect(
            world,
            requestWithQuery(
              world,
              entry,
              [
                ['startDate', first],
                ['endDate', second],
              ],
              ['startDate', 'endDate'],
            ),
            {
              status: 400,
              code: 'invalid_date_range',
            },
          );
        },
      ),
      { numRuns: 15 },
    );
  });

  test('extreme but well-formed dates (year 0000, 0001, 9999) are answered without a 5xx', async () => {
    for (const day of ['0000-01-01', '0001-01-01', '9999-12-31']) {
      const request = requestWithQuery(
        world,
        entry,
        [
          ['startDate', day],
          ['endDate', day],
        ],
        ['startDate', 'endDate'],
      );
      const before = await takeSnapshot(world.testApp.db);
      const response = await world.send(request);
      expect({ day, status: response.status }).toEqual({ day, status: response.status < 500 ? response.status : 'a 2xx or 4xx' });
      expect(snapshotDifference(before, await takeSnapshot(world.testApp.db))).toEqual([]);
    }
  });

  if (entry.operationId === 'listStatementEntries') {
    test('a type outside the enum is 400 validation_failed', async () => {
      const bad = fc
        .oneof(unicodeText, fc.constantFrom('FEE', 'fees', 'charge paid', '', 'null'))
        .filter((value) => isCleanText(value) && !['fee', 'charge_paid'].includes(value));
      await fc.assert(
        fc.asyncProperty(bad, async (value) => {
          await expectRejectedWithoutEffect(
            world,
            requestWithQuery(world, entry, [
              ['type', 'fee'],
              ['type', value],
            ]),
            { status: 400, code: 'validation_failed' },
          );
        }),
        { numRuns: 15 },
      );
    });
  }
});

test('the world is unchanged after the whole file', async () => {
  expect(snapshotDifference(world.baseline, await takeSnapshot(world.testApp.db))).toEqual([]);
});
