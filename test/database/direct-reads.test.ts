/**
 * The busiest reads skip Prisma Client's per-call work and go through its pg driver adapter
 * (src/database/direct-reads.ts), restating how Prisma turns the adapter's values into JavaScript.
 * Here the same statements, over every column type and parameter kind the service reads or
 * sends, answer exactly what `$queryRaw` answers, value by value and type by type; a transaction's
 * client still goes through Prisma; and a failing statement carries the codes the pipeline reads.
 */
import { Prisma } from '../../src/generated/prisma/client';
import { readRows } from '../../src/database/direct-reads';
import { isDatabaseUnavailable } from '../../src/database/unavailable';
import { useTestApp } from '../support/test-app';

const world = useTestApp({ SCHEDULER_INTERVAL_MS: '0' });

const everyType = (at: Date, amount: Prisma.Decimal, id: bigint) => Prisma.sql`
  SELECT 7::int4 AS int4, ${id}::int8 AS int8, 9007199254740993::int8 AS "bigInt8", ${amount}::numeric(12,2) AS amount,
         1234567.891::numeric AS "longNumeric", 2.5::float8 AS float8, true AS yes, ${false}::bool AS no,
         ${'Jo\u00e3o \u{1F600}'}::text AS text, 'x'::char(3) AS "char", 'approved'::"RentalInsuranceStatus"::text AS status,
         'approved'::"RentalInsuranceStatus" AS "status enum",
         gen_random_uuid() IS NOT NULL AS "uuid made", '4f3b8c1e-0d2a-4b7e-9a51-2c6d8e0f1a3b'::uuid AS uuid,
         ${at}::timestamptz AS at, '2026-02-28'::date AS day, '0001-01-01'::date AS "first day",
         '9999-12-31T23:59:59.999Z'::timestamptz AS "last instant", '{"a": [1, "b", null]}'::json AS json,
         ${{ nested: { value: 1 } }}::jsonb AS jsonb, json_agg(x) AS "json array",
         ARRAY['a', 'b']::text[] AS texts, ${['under_review', 'approved']}::text[] AS "text parameters",
         ARRAY[1, 2]::int4[] AS ints, ARRAY[${id}, 3]::int8[] AS int8s, ARRAY[1.10, 2]::numeric[] AS numerics,
         ARRAY[${at}::timestamptz] AS instants, ARRAY[true, false] AS booleans,
         NULL::int8 AS "null int8", NULL::numeric AS "null numeric", NULL::timestamptz AS "null instant", NULL::json AS "null json",
         ${null}::text AS "null parameter", ${3}::int4 + 1 AS "int parameter", ${0.25}::float8 AS "float parameter"
  FROM (VALUES (1), (2)) AS x(n)`;

describe('When a read goes through the driver adapter instead of Prisma Client', () => {
  test('then every column type and parameter kind answers exactly what $queryRaw answers', async () => {
    const statement = everyType(new Date('2026-11-29T11:22:33.456Z'), new Prisma.Decimal('1234.50'), 42n);
    const direct = await readRows<Record<string, unknown>>(world.db, statement);
    const viaPrisma = await world.db.$queryRaw<Array<Record<string, unknown>>>(statement);
    expect(direct).toStrictEqual(viaPrisma);
    const [row] = direct;
    expect(row!['int8']).toBe(42n);
    expect(row!['bigInt8']).toBe(9007199254740993n);
    expect(row!['amount']).toBeInstanceOf(Prisma.Decimal);
    expect(String(row!['amount'])).toBe('1234.5');
    expect(row!['at']).toEqual(new Date('2026-11-29T11:22:33.456Z'));
    expect(row!['day']).toEqual(new Date('2026-02-28T00:00:00.000Z'));
    expect(row!['jsonb']).toEqual({ nested: { value: 1 } });
    expect(row!['text parameters']).toEqual(['under_review', 'approved']);
  });

  test('then rows come in order, and no row is an empty array', async () => {
    const statement = Prisma.sql`SELECT n, n * 2 AS double FROM generate_series(1, ${3}::int) AS n ORDER BY n DESC`;
    expect(await readRows(world.db, statement)).toStrictEqual(await world.db.$queryRaw(statement));
    expect(await readRows(world.db, Prisma.sql`SELECT 1 AS one WHERE false`)).toStrictEqual([]);
  });

  test("then inside a transaction the statement sees the transaction's own writes (Prisma's path)", async () => {
    const seen = await world.db.$transaction(async (tx) => {
      await tx.$executeRaw`CREATE TEMP TABLE direct_read_probe (n int) ON COMMIT DROP`;
      await tx.$executeRaw`INSERT INTO direct_read_probe VALUES (5)`;
      return readRows<{ n: number }>(tx, Prisma.sql`SELECT n FROM direct_read_probe`);
    });
    expect(seen).toStrictEqual([{ n: 5 }]);
  });

  test('then a failing statement is an error with its SQLSTATE, and not one of an unavailable database', async () => {
    const failure = await readRows(world.db, Prisma.sql`SELECT 1 / ${0}::int AS n`).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(JSON.stringify((failure as { cause?: unknown }).cause)).toContain('22012');
    expect(isDatabaseUnavailable(failure)).toBe(false);
  });
});
