/** The service's Prisma client, on the pg driver adapter (no native query engine; see toolchain notes). */
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client';

export type Database = PrismaClient;

export function createDatabaseClient(connectionString: string, poolMax: number): Database {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString, max: poolMax }) });
}

/** The client handed to code running inside an interactive transaction. */
export type Transaction = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;
