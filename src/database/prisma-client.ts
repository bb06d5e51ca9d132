/** The service's Prisma client, on the pg driver adapter (no native query engine; see toolchain notes). */
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { Prisma, PrismaClient } from '../generated/prisma/client';

export type Database = PrismaClient;

/** Each client's pg pool, for the hand-written SQL of the hot paths (sql.ts). A transaction client is never a key. */
const pools = new WeakMap<object, pg.Pool>();

export function poolOf(db: Queryable): pg.Pool | undefined {
  return pools.get(db);
}

export function createDatabaseClient(connectionString: string, poolMax: number, poolWaitMs = 10_000): Database {
  // A transaction left open by a hung process is ended by PostgreSQL after 30 s, releasing its
  // locks (and so its idempotency key): the lock timeout documented in the contract.
  // A request waits at most poolWaitMs for a free connection (10 s, as Prisma's transactions did), then gets 503.
  const pool = new pg.Pool({
    connectionString,
    max: poolMax,
    connectionTimeoutMillis: poolWaitMs,
    options: '-c idle_in_transaction_session_timeout=30000',
  });
  // An idle connection that the server closes (a restart) is dropped by the pool; the next query
  // opens a new one. Without a listener the event would end the process.
  pool.on('error', () => undefined);
  const client = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  pools.set(client, pool);
  return client;
}

/** The client handed to code running inside an interactive transaction. */
export type Transaction = Prisma.TransactionClient;
/** Either one: read paths accept both. */
export type Queryable = Database | Transaction;
