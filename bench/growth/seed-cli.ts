/**
 * `make bench-growth-seed`: seeds the growth dataset, or resumes an interrupted seeding, or finds it
 * seeded; then prints how long the seeding took and what the database holds.
 */
import { log } from '../measure';
import { databaseSizes } from './dataset-size';
import { GROWTH_DIR, startGrowthDatabase } from './growth-database';
import { seedGrowth } from './seed-growth';

async function main(): Promise<void> {
  log(`growth dataset in ${GROWTH_DIR}`);
  const database = await startGrowthDatabase();
  try {
    const facts = await seedGrowth(database.url, GROWTH_DIR, log);
    log(`seeded (anchor ${facts.anchor}) in ${(facts.seedingSeconds / 60).toFixed(1)} min of seeding steps`);
    console.log(await databaseSizes(database.url));
  } finally {
    await database.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
