/** What a bench database holds: rows and bytes of its large tables, and the whole database's size. */
import { Client } from 'pg';

const TABLES = [
  'rental_insurances',
  'co_tenants',
  'history_entries',
  'signatures',
  'statement_entries',
  'ledger_daily_totals',
  'guarantee_status_counts',
];

export async function databaseSizes(url: string): Promise<string> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const rows = await client.query<{ name: string; rows: string; heap: string; indexes: string }>(
      `SELECT t AS name, (SELECT reltuples::bigint FROM pg_class WHERE oid = t::regclass)::text AS rows,
              pg_size_pretty(pg_table_size(t::regclass)) AS heap, pg_size_pretty(pg_indexes_size(t::regclass)) AS indexes
       FROM unnest($1::text[]) AS t`,
      [TABLES],
    );
    const total = await client.query<{ size: string }>('SELECT pg_size_pretty(pg_database_size(current_database())) AS size');
    return [
      '| table | rows (estimate) | table | indexes |',
      '|---|---:|---:|---:|',
      ...rows.rows.map((row) => `| ${row.name} | ${Number(row.rows).toLocaleString('en-US')} | ${row.heap} | ${row.indexes} |`),
      '',
      `Database size: ${total.rows[0]!.size}.`,
    ].join('\n');
  } finally {
    await client.end();
  }
}
