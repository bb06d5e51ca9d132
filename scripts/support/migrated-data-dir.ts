/**
 * `tsx scripts/support/migrated-data-dir.ts <dir> <port>`: an embedded PostgreSQL data directory
 * holding the service's database with every migration applied and nothing else, made as `npm
 * start` makes it (openDatabaseServer, then migrateDatabase). sandbox-service.mjs copies it for
 * each sandbox instead of running initdb and the migrations again for every one.
 */
import { loadConfig } from '../../src/config';
import { openDatabaseServer } from '../../src/database/database-server';
import { migrateDatabase } from '../../src/database/migrate';

async function main(): Promise<void> {
  const [dataDir, port] = process.argv.slice(2);
  if (!dataDir || !port) throw new Error('usage: migrated-data-dir.ts <dir> <port>');
  const config = loadConfig({ ENVIRONMENT: 'sandbox', EMBEDDED_DB_DIR: dataDir, EMBEDDED_DB_PORT: port });
  const database = await openDatabaseServer(config, () => undefined);
  try {
    await migrateDatabase(database.directUrl);
  } finally {
    await database.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
