/**
 * Seeds the growth dataset once (bench/growth/README in docs/growth.md): 5,000 agencies, 10,000,000
 * guarantees with their co-tenants, history and signatures, and 30,000,000 statement entries, by
 * `INSERT ... SELECT generate_series` in slices. Each step is one transaction that records itself in
 * growth_seed.steps, so an interrupted seeding resumes at the step it was in, and a seeded database
 * is left as it is. As bench/seed.ts does for the bench agency, the guarantees' triggers are off
 * during their load (session_replication_role, which also skips the foreign-key checks: the rows
 * are consistent by construction) and the status counts they keep are rebuilt after it; the seeder
 * refuses to run when those tables have a trigger it does not know how to stand in for. Statement
 * entries are loaded with their triggers on, so that whatever a trigger keeps from them (a
 * statement-level summary) stays right. The secondary indexes of the loaded tables are dropped
 * first and built again at the end, from their saved definitions.
 */
import fs from 'node:fs';
import { Client } from 'pg';
import { agencySizes, GROWTH_SHAPE, shapeText } from './agency-sizes';
import { INSERT_CO_TENANTS, INSERT_GUARANTEE_SLICE, SLICE_IDS } from './guarantee-rows';
import { INSERT_ENTRY_SLICE, REBUILD_DAILY_TOTALS, REBUILD_STATUS_COUNTS } from './ledger-rows';
import { INSERT_HISTORY, INSERT_SIGNATURES } from './lifecycle-rows';
import { SEED_SCHEMA } from './seed-schema';

const SLICES = 20;
/** Guarantees are created over the five years before the anchor. */
const PERIOD_DAYS = 1826;
const LOADED_TABLES = ['rental_insurances', 'co_tenants', 'history_entries', 'signatures', 'statement_entries'];
/** Tables loaded with their triggers off, and the triggers whose work the seeder does itself afterwards. */
const TRIGGERLESS_TABLES = ['rental_insurances', 'co_tenants', 'history_entries', 'signatures'];
const REBUILT_BY_THE_SEEDER = ['guarantee_status_counts_track'];
/** What the seeded database takes on disk, about (measured: docs/growth.md), and what must stay free beside it. */
const EXPECTED_BYTES = (40e9 * GROWTH_SHAPE.guarantees) / 10_000_000;
const RESERVE_BYTES = 15e9;

export interface GrowthSeedFacts {
  /** The seeding's "now": every date of the dataset is before it. */
  anchor: string;
  /** The last seeded guarantee id: rows above it were written by bench runs. */
  lastSeededId: bigint;
  /** Seconds the steps took, all sessions together. */
  seedingSeconds: number;
}

export async function seedGrowth(url: string, dataDir: string, log: (line: string) => void): Promise<GrowthSeedFacts> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(SEED_SCHEMA);
    await client.query(`INSERT INTO growth_seed.facts (key, value) VALUES ('anchor', date_trunc('second', now())::text) ON CONFLICT DO NOTHING`);
    await client.query(`INSERT INTO growth_seed.facts (key, value) VALUES ('shape', $1) ON CONFLICT DO NOTHING`, [shapeText()]);
    const shape = (await client.query<{ value: string }>(`SELECT value FROM growth_seed.facts WHERE key = 'shape'`)).rows[0]!.value;
    if (shape !== shapeText())
      throw new Error(`${dataDir} holds the growth dataset of shape ${shape}, not ${shapeText()}: set BENCH_GROWTH_DIR to another directory`);
    const anchor = (await client.query<{ value: string }>(`SELECT value FROM growth_seed.facts WHERE key = 'anchor'`)).rows[0]!.value;
    const done = new Set((await client.query<{ name: string }>('SELECT name FROM growth_seed.steps')).rows.map((row) => row.name));
    if (!done.has('complete')) {
      await checkDiskSpace(client, dataDir, done.size === 0);
      await runSteps(client, anchor, done, log);
    }
    const facts = await client.query<{ last: string; seconds: string }>(
      `SELECT (SELECT value FROM growth_seed.facts WHERE key = 'last_seeded_id') AS last, (SELECT sum(seconds) FROM growth_seed.steps)::text AS seconds`,
    );
    return { anchor, lastSeededId: BigInt(facts.rows[0]!.last), seedingSeconds: Number(facts.rows[0]!.seconds) };
  } finally {
    await client.end();
  }
}

async function runSteps(client: Client, anchor: string, done: Set<string>, log: (line: string) => void): Promise<void> {
  await client.query(
    `SET maintenance_work_mem = '1GB'; SET work_mem = '256MB'; SET max_parallel_maintenance_workers = 1; SET synchronous_commit = off`,
  );
  // Fewer checkpoints during the load; put back when it ends.
  await client.query(`ALTER SYSTEM SET max_wal_size = '4GB'`);
  await client.query('SELECT pg_reload_conf()');
  await refuseUnknownTriggers(client);
  /** bulk: one transaction, triggers off; transaction: one transaction, triggers on; outside: no transaction (VACUUM). */
  const step = async (name: string, work: () => Promise<unknown>, mode: 'bulk' | 'transaction' | 'outside' = 'transaction') => {
    if (done.has(name)) return;
    const started = Date.now();
    if (mode !== 'outside') await client.query('BEGIN');
    try {
      if (mode === 'bulk') await client.query('SET LOCAL session_replication_role = replica');
      await work();
      await client.query('INSERT INTO growth_seed.steps (name, seconds) VALUES ($1, $2)', [name, (Date.now() - started) / 1000]);
      if (mode !== 'outside') await client.query('COMMIT');
    } catch (error) {
      if (mode !== 'outside') await client.query('ROLLBACK');
      throw error;
    }
    done.add(name);
    log(`growth seed: ${name} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  };
  const slices = Array.from({ length: SLICES }, (_, slice) => slice);
  const sliceIds = async (slice: number) => {
    const { first, last } = (await client.query<{ first: string; last: string }>(SLICE_IDS, [slice, SLICES])).rows[0]!;
    return [first, last];
  };

  await step('agencies', () => insertAgencies(client));
  await step('drop-indexes', () => dropIndexes(client));
  for (const slice of slices) {
    await step(
      `guarantees-${slice}`,
      async () => {
        await client.query(INSERT_GUARANTEE_SLICE, [slice, SLICES, anchor, PERIOD_DAYS]);
        await client.query(INSERT_CO_TENANTS, await sliceIds(slice));
      },
      'bulk',
    );
  }
  await step('guarantee-ids', async () => {
    await client.query(`SELECT setval(pg_get_serial_sequence('rental_insurances', 'id'), (SELECT max(id) FROM rental_insurances))`);
    await client.query(`INSERT INTO growth_seed.facts (key, value) SELECT 'last_seeded_id', max(id)::text FROM rental_insurances`);
  });
  for (const slice of slices) {
    await step(`history-${slice}`, async () => client.query(INSERT_HISTORY, [...(await sliceIds(slice)), anchor]), 'bulk');
    await step(`signatures-${slice}`, async () => client.query(INSERT_SIGNATURES, [...(await sliceIds(slice)), anchor]), 'bulk');
  }
  for (const slice of slices) await step(`entries-${slice}`, () => client.query(INSERT_ENTRY_SLICE, [slice, SLICES, anchor.slice(0, 10)]));
  const definitions = await client.query<{ name: string; definition: string }>(
    'SELECT name, definition FROM growth_seed.index_definitions ORDER BY name',
  );
  for (const { name, definition } of definitions.rows) await step(`index-${name}`, () => client.query(definition));
  await step('status-counts', async () => {
    await client.query('DELETE FROM guarantee_status_counts s USING growth_seed.agencies a WHERE a.company_id = s.company_id');
    await client.query(REBUILD_STATUS_COUNTS);
  });
  await step('daily-totals', async () => {
    await client.query('DELETE FROM ledger_daily_totals t USING growth_seed.agencies a WHERE a.company_id = t.company_id');
    await client.query(REBUILD_DAILY_TOTALS);
  });
  // Statistics, the visibility map (index-only counts) and hint bits, once, rather than during a measurement.
  for (const table of [...LOADED_TABLES, 'ledger_daily_totals', 'guarantee_status_counts', 'companies']) {
    await step(`vacuum-${table}`, () => client.query(`VACUUM (ANALYZE) ${table}`), 'outside');
  }
  await client.query('ALTER SYSTEM RESET max_wal_size');
  await client.query('SELECT pg_reload_conf()');
  await step('complete', async () => undefined);
}

async function insertAgencies(client: Client): Promise<void> {
  const sizes = agencySizes(GROWTH_SHAPE);
  await client.query(
    `INSERT INTO growth_seed.agencies (rank, company_id, guarantees)
     SELECT rank, 'agency-' || lpad(rank::text, 4, '0'), size FROM unnest($1::int[]) WITH ORDINALITY AS s(size, rank)`,
    [sizes],
  );
  await client.query(`INSERT INTO companies (id, name) SELECT company_id, 'Imobiliária ' || lpad(rank::text, 4, '0') FROM growth_seed.agencies`);
}

/** A trigger of a table loaded with triggers off keeps something the seeder would not rebuild: refuse rather than seed it wrong. */
async function refuseUnknownTriggers(client: Client): Promise<void> {
  const unknown = await client.query<{ name: string }>(
    `SELECT tgrelid::regclass::text || '.' || tgname AS name FROM pg_trigger
     WHERE NOT tgisinternal AND tgrelid = ANY ($1::regclass[]) AND NOT tgname = ANY ($2::text[])`,
    [TRIGGERLESS_TABLES, REBUILT_BY_THE_SEEDER],
  );
  if (unknown.rows.length > 0) {
    throw new Error(
      `The growth seeder loads ${TRIGGERLESS_TABLES.join(', ')} with their triggers off, and does not know what ` +
        `${unknown.rows.map((row) => row.name).join(', ')} keeps: teach it (bench/growth/seed-growth.ts) to rebuild that after the load.`,
    );
  }
}

/** Saves the definitions of the loaded tables' indexes that back no constraint, then drops them. */
async function dropIndexes(client: Client): Promise<void> {
  await client.query(
    `INSERT INTO growth_seed.index_definitions (name, table_name, definition)
     SELECT i.indexrelid::regclass::text, i.indrelid::regclass::text, pg_get_indexdef(i.indexrelid)
     FROM pg_index i
     WHERE i.indrelid = ANY ($1::regclass[]) AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`,
    [LOADED_TABLES],
  );
  const names = await client.query<{ name: string }>('SELECT name FROM growth_seed.index_definitions');
  for (const { name } of names.rows) await client.query(`DROP INDEX ${name}`);
}

/** Refuses to start a seeding that would leave less than RESERVE_BYTES free on the data directory's disk. */
async function checkDiskSpace(client: Client, dataDir: string, fresh: boolean): Promise<void> {
  const stats = fs.statfsSync(dataDir);
  const free = stats.bavail * stats.bsize;
  const current = Number((await client.query<{ size: string }>('SELECT pg_database_size(current_database())::text AS size')).rows[0]!.size);
  const needed = Math.max(0, EXPECTED_BYTES - current);
  if (free - needed < RESERVE_BYTES) {
    const gb = (bytes: number) => `${(bytes / 1e9).toFixed(1)} GB`;
    throw new Error(
      `The growth dataset needs about ${gb(needed)} more on ${dataDir}'s disk (${fresh ? 'a fresh seeding' : 'to finish'}), ` +
        `which has ${gb(free)} free: that would leave less than ${gb(RESERVE_BYTES)}. Free some space or set BENCH_GROWTH_DIR elsewhere.`,
    );
  }
}
