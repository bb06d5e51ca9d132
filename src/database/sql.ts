/**
 * Hand-written SQL for the hot paths. Measured on this machine (8 concurrent callers, one row by
 * primary key): the pg driver costs ~0.13 ms of CPU per query, Prisma's `$queryRaw` ~0.5 ms and a
 * `findFirst` with an `include` ~2.3 ms, so the paths every partner calls run their SQL here.
 *
 * `sqlOf` runs a statement on the pool, or inside the caller's Prisma interactive transaction, and
 * both return the same JavaScript values: int8 as bigint, numeric as Prisma's Decimal, date as the
 * UTC-midnight Date, timestamptz as Date, json as parsed JSON (as Prisma's raw queries do).
 */
import pg from 'pg';
import { Prisma } from '../generated/prisma/client';
import { poolOf, type Database, type Queryable, type Transaction } from './prisma-client';

export interface Sql {
  /**
   * `statement` names a fixed SQL text run on every request: the pool prepares it once per
   * connection, so PostgreSQL (on the same cores) skips parsing and planning it again.
   */
  rows<T>(text: string, values: readonly unknown[], statement?: string): Promise<T[]>;
}

const INT8 = 20;
const NUMERIC = 1700;
const DATE = 1082;

const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8) return (value: string) => BigInt(value);
    if (oid === NUMERIC) return (value: string) => new Prisma.Decimal(value);
    if (oid === DATE) return (value: string) => new Date(`${value}T00:00:00.000Z`);
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

/** Runs SQL on a pool or on one client (a transaction of our own). */
export function poolSql(target: pg.Pool | pg.PoolClient): Sql {
  return {
    async rows<T>(text: string, values: readonly unknown[], statement?: string): Promise<T[]> {
      // pg would write a Date in the process's local time zone; ISO text is exact for date and timestamptz columns.
      const parameters = values.map((value) => (value instanceof Date ? value.toISOString() : value));
      const result = await target.query({ text, values: parameters, types, ...(statement ? { name: statement } : {}) });
      return result.rows as T[];
    },
  };
}

/**
 * A transaction of our own on one pooled connection: the hot write paths skip Prisma's interactive
 * transaction (~0.55 ms of CPU to open and commit, measured) as well as its query engine.
 */
export class SqlTransaction {
  constructor(readonly client: pg.PoolClient) {}
}

/** Code that runs in either kind of transaction writes its statements through `sqlOf`. */
export type AnyTransaction = Transaction | SqlTransaction;

/**
 * Runs `work` in BEGIN ... COMMIT on one pooled connection; any failure rolls everything back.
 * `opening` statements travel with BEGIN in the same round trip (simple protocol, so they take no
 * parameters: callers inline only values they escaped or computed); `work` receives their rows.
 */
export async function inSqlTransaction<T>(
  db: Database,
  opening: string[],
  work: (tx: SqlTransaction, opened: unknown[][]) => Promise<T>,
): Promise<T> {
  const pool = poolOf(db);
  if (!pool) throw new Error('This database client has no pg pool');
  const client = await pool.connect();
  let broken: Error | undefined;
  // A connection lost between two statements emits 'error' on the checked-out client (the pool
  // only listens while it is idle); unheard, the event would end the process. The next statement
  // fails, the request gets 503, and the connection is discarded on release.
  const onLost = (error: Error) => (broken = error);
  client.on('error', onLost);
  try {
    const begun = (await client.query({ text: ['BEGIN', ...opening].join('; '), types })) as unknown as pg.QueryResult | pg.QueryResult[];
    const opened = Array.isArray(begun) ? begun.slice(1).map((result) => result.rows as unknown[]) : [];
    const result = await work(new SqlTransaction(client), opened);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    // A connection that cannot even roll back is discarded rather than returned to the pool.
    if (!broken) await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
    throw error;
  } finally {
    client.removeListener('error', onLost);
    client.release(broken);
  }
}

/** The database handle's pool, our own transaction, or the caller's Prisma transaction (so the statement sees its writes). */
export function sqlOf(db: Queryable | SqlTransaction): Sql {
  if (db instanceof SqlTransaction) return poolSql(db.client);
  const pool = poolOf(db);
  if (pool) return poolSql(pool);
  return {
    rows: <T>(text: string, values: readonly unknown[]) => db.$queryRawUnsafe<T[]>(text, ...values),
  };
}
