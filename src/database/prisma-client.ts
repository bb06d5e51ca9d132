/** The service's Prisma client, on the pg driver adapter (no native query engine; see toolchain notes). */
import { PrismaPg } from '@prisma/adapter-pg';
import { Prisma, PrismaClient } from '../generated/prisma/client';

export type Database = PrismaClient;

export function createDatabaseClient(connectionString: string, poolMax: number): Database {
  // A transaction left open by a hung process is ended by PostgreSQL after 30 s, releasing its
  // locks (and so its idempotency key): the lock timeout documented in the contract.
  return new PrismaClient({
    adapter: new PrismaPg({ connectionString, max: poolMax, options: '-c idle_in_transaction_session_timeout=30000' }),
  });
}

/** The client handed to code running inside an interactive transaction. */
export type Transaction = Prisma.TransactionClient;
/** Either one: read paths accept both. */
export type Queryable = Database | Transaction;
