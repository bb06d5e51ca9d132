/**
 * Hand-written SQL for the hot paths. Measured on this machine (8 concurrent callers, one row by
 * primary key): the pg driver costs ~0.13 ms of CPU per query, Prisma's `$queryRaw` ~0.5 ms and a
 * `findFirst` with an `include` ~2.3 ms, so the paths every partner calls run their SQL here.
 *
 * `sqlOf` runs a statement on the pool, or inside the caller's Prisma interactive transaction, and
 * both return the same JavaScript values: int8 as bigint, numeric as Prisma's Decimal, date as the
 * UTC-midnight Date, timestamptz as Date, json as parsed JSON (as Prisma's raw queries do).
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { Prisma } from '../generated/prisma/client';
import { poolOf, type Database, type Queryable, type Transaction } from './prisma-client';

export interface Sql {
  /**
   * `statement` names a fixed SQL text run on every request: the pool prepares it once per
   * connection, so PostgreSQL (on the same cores) skips parsing and planning it again.
   */
  rows<T>(text: string, values: readonly unknown[], statement?: string): Promise<T[]>;
  /**
   * A write whose result nobody reads. In a transaction of our own it is sent with COMMIT (one
   * round trip fewer), so it must not be one that a later statement of the transaction reads.
   */
  writeAtCommit(text: string, values: readonly unknown[]): Promise<void>;
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

/**
 * Dates travel as ISO text on every path: pg would write a Date in the process's local time zone,
 * and Prisma sends one as a timestamp that a date column reads in the server's time zone.
 */
const parameterOf = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

/**
 * A name for a statement whose text is built from the request (the columns a create or a patch
 * writes) but repeats from call to call: the connection prepares each distinct text once, and
 * PostgreSQL stops planning it on every call (measured: 0.2 ms of its CPU per create). Only for
 * statements whose plan cannot depend on the values (inserts, updates by primary key).
 */
export function statementNameFor(prefix: string, text: string): string {
  return `${prefix}-${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`;
}

/** Runs SQL on a pool or on one client. */
export function poolSql(target: pg.Pool | pg.PoolClient): Sql {
  const sql: Sql = {
    async rows<T>(text: string, values: readonly unknown[], statement?: string): Promise<T[]> {
      const result = await target.query({ text, values: values.map(parameterOf), types, ...(statement ? { name: statement } : {}) });
      return result.rows as T[];
    },
    async writeAtCommit(text: string, values: readonly unknown[]): Promise<void> {
      await sql.rows(text, values);
    },
  };
  return sql;
}

/**
 * A statement with its `$n` placeholders replaced by literals (the driver's escaping for text), for
 * the simple protocol that can carry several statements in one round trip. The placeholders are
 * found in our own SQL text only; a value's text is never scanned again.
 */
export function inlineParameters(text: string, values: readonly unknown[]): string {
  return text.replace(/\$(\d+)/g, (_placeholder, index: string) => literalOf(parameterOf(values[Number(index) - 1])));
}

function literalOf(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string') return pg.escapeLiteral(value);
  throw new Error(`No SQL literal for a value of type ${typeof value}`);
}

/**
 * A statement sent in a batch with BEGIN or COMMIT travels in the simple protocol, so PostgreSQL
 * parses and plans it on every call. One whose plan costs more than its run is prepared once per
 * connection instead (`PREPARE`, in a round trip of its own), and the batch carries `EXECUTE`.
 */
export interface BatchStatement {
  /** `EXECUTE name(literals)`, for a batch. */
  execute(values: readonly unknown[]): string;
}

const batchStatements: string[] = [];
const connectionsWithBatchStatements = new WeakSet<pg.PoolClient>();

export function batchStatement(name: string, parameterTypes: string[], text: string): BatchStatement {
  batchStatements.push(`PREPARE ${name}(${parameterTypes.join(', ')}) AS ${text}`);
  return { execute: (values) => `EXECUTE ${name}(${values.map((value) => literalOf(parameterOf(value))).join(', ')})` };
}

async function prepareBatchStatements(client: pg.PoolClient): Promise<void> {
  if (connectionsWithBatchStatements.has(client)) return;
  for (const prepare of batchStatements) {
    // 42P05: prepared already on this connection (a request failed between PREPARE and the mark below).
    await client.query(prepare).catch((error: { code?: string }) => {
      if (error.code !== '42P05') throw error;
    });
  }
  connectionsWithBatchStatements.add(client);
}

/**
 * A transaction of our own on one pooled connection: the hot write paths skip Prisma's interactive
 * transaction (~0.55 ms of CPU to open and commit, measured) as well as its query engine.
 */
export class SqlTransaction {
  /** Statements sent together with COMMIT (Sql.writeAtCommit). */
  readonly atCommit: string[] = [];
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
    const begin = async () => {
      await prepareBatchStatements(client);
      return (await client.query({ text: ['BEGIN', ...opening].join('; '), types })) as unknown as pg.QueryResult | pg.QueryResult[];
    };
    const begun = await begin().catch(async (error: { code?: string }) => {
      // 26000: something deallocated this session's prepared statements. Nothing ran yet, so the
      // statements are prepared again and the opening is sent once more.
      if (error.code !== '26000') throw error;
      await client.query('ROLLBACK');
      connectionsWithBatchStatements.delete(client);
      return begin();
    });
    const opened = Array.isArray(begun) ? begun.slice(1).map((result) => result.rows as unknown[]) : [];
    const transaction = new SqlTransaction(client);
    const result = await work(transaction, opened);
    await client.query([...transaction.atCommit, 'COMMIT'].join('; '));
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
  if (db instanceof SqlTransaction) {
    const transaction = db;
    return {
      rows: poolSql(transaction.client).rows,
      writeAtCommit: async (text, values) => void transaction.atCommit.push(inlineParameters(text, values)),
    };
  }
  const pool = poolOf(db);
  if (pool) return poolSql(pool);
  const rows = <T>(text: string, values: readonly unknown[]) => db.$queryRawUnsafe<T[]>(text, ...values.map(parameterOf));
  return { rows, writeAtCommit: async (text, values) => void (await rows(text, values)) };
}
