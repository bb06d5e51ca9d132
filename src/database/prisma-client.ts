/**
 * The service's Prisma client on the pg driver adapter (no native query engine; see the toolchain
 * notes). Prisma Client is the one door to the database: repositories use its model API, and its
 * tagged raw SQL where a measured hot path needs it. The pool under it is created here so that its
 * occupancy can be observed (metrics), its connections keep their statements prepared
 * (statement-cache.ts) unless a pooler is in between, and a lost and regained database is logged
 * once (outage-log.ts); nothing else queries through it, but the statements that carry a
 * document's bytes (`bytesQuery`).
 */
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { Prisma, PrismaClient } from '../generated/prisma/client';
import type { PoolStatistics } from '../observability/metrics';
import { DatabasePool } from './driver-errors';
import { StatementCachingClient, UnnamedStatementClient } from './statement-cache';
import { databaseFailed } from './outage-log';
import { readDirectlyThrough } from './direct-reads';

export type Database = PrismaClient;
/** The client handed to code running inside an interactive transaction. */
export type Transaction = Prisma.TransactionClient;
/** Either one: read paths accept both. */
export type Queryable = Database | Transaction;

export interface DatabaseOptions {
  poolMax: number;
  /** How long a request waits for a free pooled connection before it fails (answered 503). */
  poolWaitMs?: number;
  /**
   * Whether statements are kept prepared under a name (statement-cache.ts); true by default. False
   * behind a transaction pooler, which hands one server connection to several clients: a name made
   * on it by one client collides with another's (42P05) or is missing for the next (26000).
   */
  namedStatements?: boolean;
}

const pools = new WeakMap<Database, pg.Pool>();

export function createDatabaseClient(connectionString: string, options: DatabaseOptions): Database {
  const pool = new DatabasePool({
    connectionString,
    max: options.poolMax,
    Client: options.namedStatements === false ? UnnamedStatementClient : StatementCachingClient,
    connectionTimeoutMillis: options.poolWaitMs ?? 10_000,
    // A transaction left open by a hung process is ended by PostgreSQL after 30 s, releasing its
    // locks (and so its idempotency key): the lock timeout documented in the contract.
    options: '-c idle_in_transaction_session_timeout=30000',
  });
  const adapter = new PrismaPg(pool, {
    disposeExternalPool: true,
    // A connection that the server closes (a restart) is dropped by the pool and the next query
    // opens a new one; without these listeners the event would end the process.
    onPoolError: (error) => void databaseFailed(error),
    onConnectionError: (error) => void databaseFailed(error),
  });
  const db = new PrismaClient({ adapter });
  pools.set(db, pool);
  readDirectlyThrough(db, pool);
  return db;
}

/** How many connections the client's pool holds, how many are idle, and how many requests wait for one. */
export function poolStatistics(db: Database): PoolStatistics {
  const pool = pools.get(db);
  return { total: pool?.totalCount ?? 0, idle: pool?.idleCount ?? 0, waiting: pool?.waitingCount ?? 0 };
}

/**
 * One statement on the client's own pool through the pg driver, for the statements that carry a
 * document's bytes outside any transaction (documents/postgres-store.ts). Through Prisma, a bytea
 * parameter is copied several times on its way through the query compiler (JSON, WebAssembly) and
 * a bytea result comes back as a JavaScript array of numbers: concurrent uploads and downloads of
 * large documents needed more heap than the service has. Here a Buffer parameter is sent as it is
 * and a bytea column is read back as a Buffer.
 */
export async function bytesQuery<Row>(db: Database, text: string, values: unknown[]): Promise<Row[]> {
  const pool = pools.get(db);
  if (!pool) throw new Error('bytesQuery needs a client made by createDatabaseClient');
  return (await pool.query<Row & pg.QueryResultRow>(text, values)).rows;
}
