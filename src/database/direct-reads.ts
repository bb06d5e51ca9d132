/**
 * The busiest reads (a guarantee, a page of them, a history page), sent through Prisma's pg driver
 * adapter, the layer Prisma Client sends every statement through, without the client's own work
 * around each call. Prisma 6.19's client compiles every `$queryRaw` in WebAssembly on the event loop
 * (the request as JSON, a query plan back), captures a stack for its error messages and keeps a
 * debug history: about 0.25 ms of a get by id's 1.1 ms of CPU, more than the pipeline's own work
 * (bench/results.md, "Reads through Prisma's driver adapter"). Prisma 7.4 caches those plans, but
 * Prisma 7's CLI needs a binary this project cannot download (../shared/notes/toolchain.md).
 *
 * `readRows` answers exactly what `db.$queryRaw` answers for the same statement: the same row
 * objects, the same JavaScript values per column type (Prisma's mapping, restated below; checked
 * against `$queryRaw` column type by column type in test/database/direct-reads.test.ts), and its
 * errors carry the same adapter codes (database/unavailable.ts reads them).
 *
 * Only outside a transaction: a transaction's client (`Prisma.TransactionClient`) holds its
 * connection inside Prisma, so its statements go through `$queryRaw` as before. With tracing on,
 * each read is a span of ours, `db.read`, with its SQL in `db.query.text` as Prisma's own
 * statement spans have it (docs/tracing.md).
 */
import { PrismaPg } from '@prisma/adapter-pg';
import type pg from 'pg';
import { ColumnTypeEnum, type ArgType, type ColumnType, type SqlQueryable } from '@prisma/driver-adapter-utils';
import { Prisma, type PrismaClient } from '../generated/prisma/client';
import { inSpan } from '../tracing/tracing';

interface AdapterOf {
  factory: PrismaPg;
  connected?: Promise<SqlQueryable>;
}

const adapters = new WeakMap<object, AdapterOf>();

/**
 * Called by createDatabaseClient: `db`'s reads may go through an adapter of its own on `db`'s pool.
 * Not the client's adapter factory: connecting that one again would add its pool-error listener a
 * second time (each idle connection's failure reported twice); this one has no listener of ours
 * and never ends the pool.
 */
export function readDirectlyThrough(db: PrismaClient, pool: pg.Pool): void {
  adapters.set(db, { factory: new PrismaPg(pool) });
}

/** The rows of a read, as `db.$queryRaw<Row[]>(statement)` answers them. */
export async function readRows<Row>(db: PrismaClient | Prisma.TransactionClient, statement: Prisma.Sql): Promise<Row[]> {
  const adapter = adapters.get(db);
  if (adapter === undefined) return db.$queryRaw<Row[]>(statement);
  // With an external pool, connecting the adapter opens nothing: it queries the pool it was given.
  adapter.connected ??= adapter.factory.connect();
  const args: unknown[] = [];
  const argTypes: ArgType[] = [];
  for (const value of statement.values) {
    const [arg, type] = argumentOf(value);
    args.push(arg);
    argTypes.push(type);
  }
  const connected = await adapter.connected;
  const result = await inSpan('db.read', () => connected.queryRaw({ sql: statement.text, args, argTypes }), {
    'db.system.name': 'postgresql',
    'db.query.text': statement.text,
  });
  const { columnNames, columnTypes } = result;
  return result.rows.map((values) => {
    const row: Record<string, unknown> = {};
    for (let column = 0; column < values.length; column++) {
      row[columnNames[column]!] = valueOf(values[column], columnTypes[column]!);
    }
    return row as Row;
  });
}

const scalar = (scalarType: ArgType['scalarType']): ArgType => ({ scalarType, arity: 'scalar' });

/** A statement's parameter as Prisma Client hands it to the adapter (its JSON encoding, compiled). */
function argumentOf(value: unknown): [unknown, ArgType] {
  if (value === null || value === undefined) return [null, scalar('unknown')];
  if (Array.isArray(value)) {
    const elements = value.map(argumentOf);
    const element = elements.find(([arg]) => arg !== null);
    return [elements.map(([arg]) => arg), { scalarType: element?.[1].scalarType ?? 'unknown', arity: 'list' }];
  }
  switch (typeof value) {
    case 'string':
      return [value, scalar('string')];
    case 'number':
      return [value, scalar(Number.isInteger(value) ? 'int' : 'float')];
    case 'boolean':
      return [value, scalar('boolean')];
    case 'bigint':
      return [value.toString(), scalar('bigint')];
  }
  // The adapter writes a datetime argument as UTC text.
  if (value instanceof Date) return [value, scalar('datetime')];
  if (Prisma.Decimal.isDecimal(value)) return [(value as Prisma.Decimal).toString(), scalar('decimal')];
  if (value instanceof Uint8Array) return [value, scalar('bytes')];
  return [JSON.stringify(value), scalar('json')];
}

/**
 * A column value from the adapter as Prisma Client returns it from `$queryRaw` (its raw result
 * serialisation, then its deserialisation: int8 as BigInt, numeric as Decimal, dates as Date, JSON
 * parsed). Byte columns are read by documents' own statements (prisma-client.ts, `bytesQuery`).
 */
function valueOf(value: unknown, type: ColumnType): unknown {
  if (value === null) return null;
  switch (type) {
    case ColumnTypeEnum.Int32:
      return Math.trunc(Number(value));
    case ColumnTypeEnum.Int64:
      return BigInt(typeof value === 'number' ? Math.trunc(value) : (value as string));
    case ColumnTypeEnum.Numeric:
      return new Prisma.Decimal(value as string);
    case ColumnTypeEnum.Date:
    case ColumnTypeEnum.DateTime:
      return new Date(value as string);
    case ColumnTypeEnum.Time:
      return new Date(`1970-01-01T${value as string}Z`);
    case ColumnTypeEnum.Json:
      return JSON.parse(value as string) as unknown;
    case ColumnTypeEnum.Boolean:
      return typeof value === 'boolean' ? value : value === 'true' || value === '1' || value === 1;
    case ColumnTypeEnum.Int32Array:
      return (value as unknown[]).map((element) => valueOf(element, ColumnTypeEnum.Int32));
    case ColumnTypeEnum.Int64Array:
      return (value as unknown[]).map((element) => valueOf(element, ColumnTypeEnum.Int64));
    case ColumnTypeEnum.NumericArray:
      return (value as unknown[]).map((element) => valueOf(element, ColumnTypeEnum.Numeric));
    case ColumnTypeEnum.DateArray:
    case ColumnTypeEnum.DateTimeArray:
      return (value as unknown[]).map((element) => valueOf(element, ColumnTypeEnum.DateTime));
    case ColumnTypeEnum.JsonArray:
      return (value as unknown[]).map((element) => valueOf(element, ColumnTypeEnum.Json));
    case ColumnTypeEnum.BooleanArray:
      return (value as unknown[]).map((element) => valueOf(element, ColumnTypeEnum.Boolean));
    case ColumnTypeEnum.Bytes:
    case ColumnTypeEnum.BytesArray:
    case ColumnTypeEnum.TimeArray:
      throw new Error(`readRows does not read columns of adapter type ${type}; use $queryRaw`);
    default:
      // Text, enums, characters, UUIDs, floats (already numbers) and their arrays, as they come.
      return value;
  }
}
