/**
 * Seeds one company with N guarantees and N statement entries directly in SQL (generate_series),
 * so that the benchmark measures reads and writes against tables of realistic size.
 */
import { Client } from 'pg';

export const BENCH_COMPANY = 'bench-agency';

export async function seed(databaseUrl: string, rows: number, log: (line: string) => void): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`INSERT INTO companies (id, name) VALUES ($1, 'Bench Imobiliária') ON CONFLICT DO NOTHING`, [BENCH_COMPANY]);
    const existing = Number((await client.query(`SELECT count(*) AS n FROM rental_insurances WHERE company_id = $1`, [BENCH_COMPANY])).rows[0].n);
    if (existing < rows) {
      log(`seeding ${rows - existing} guarantees...`);
      const started = Date.now();
      // The per-row status-count trigger would make a million-row insert take many minutes; the
      // counts of the seeded company are rebuilt in one statement afterwards instead.
      await client.query('BEGIN');
      await client.query('ALTER TABLE rental_insurances DISABLE TRIGGER guarantee_status_counts_track');
      // Names and CPFs vary so that every filter has realistic selectivity: ~1/10 per status
      // (id % 10 = 0 is under_review: the patch scenario uses those),
      // one guarantee per CPF and per property, names from a small pool (substring search hits many).
      await client.query(
        `INSERT INTO rental_insurances (company_id, external_id, status, version, creator_name, creator_service_account,
           tenant_cpf_cnpj, tenant_name, tenant_name_search, tenant_email, property_external_id, property_type,
           address_zip_code, address_street, address_number, address_neighborhood, address_city, address_state,
           rental_amount, condo_fee, created_at, updated_at)
         SELECT $1, 'CTR-' || g, (enum_range(NULL::"RentalInsuranceStatus"))[1 + g % 10], 1, 'Bench ERP', true,
           lpad(g::text, 11, '0'),
           (ARRAY['Maria José','João Souza','Ana Lima','José Ângelo','Beatriz Gonçalves','Carlos Eduardo','Fernanda Sá','Luís Otávio'])[1 + g % 8] || ' ' || g,
           lower((ARRAY['maria jose','joao souza','ana lima','jose angelo','beatriz goncalves','carlos eduardo','fernanda sa','luis otavio'])[1 + g % 8]) || ' ' || g,
           'tenant' || g || '@example.com', 'IMV-' || g, 'apartment', '01310100', 'Avenida Paulista', g::text, 'Bela Vista', 'São Paulo', 'SP',
           1000 + (g % 5000), 300, now() - (g || ' seconds')::interval, now()
         FROM generate_series($2::int + 1, $3::int) AS g`,
        [BENCH_COMPANY, existing, rows],
      );
      await client.query('ALTER TABLE rental_insurances ENABLE TRIGGER guarantee_status_counts_track');
      await client.query('DELETE FROM guarantee_status_counts WHERE company_id = $1', [BENCH_COMPANY]);
      await client.query(
        `INSERT INTO guarantee_status_counts (company_id, status, shard, count)
         SELECT company_id, status, (id % 16)::smallint, count(*) FROM rental_insurances WHERE company_id = $1 GROUP BY 1, 2, 3`,
        [BENCH_COMPANY],
      );
      await client.query('COMMIT');
      log(`guarantees seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
    const entries = Number((await client.query(`SELECT count(*) AS n FROM statement_entries WHERE company_id = $1`, [BENCH_COMPANY])).rows[0].n);
    if (entries < rows) {
      log(`seeding ${rows - entries} statement entries...`);
      const started = Date.now();
      await client.query(
        `INSERT INTO statement_entries (company_id, date, description, amount, type)
         SELECT $1, current_date - (g % 1000), 'Bench entry ' || g,
           CASE WHEN g % 2 = 0 THEN (10 + g % 1000) ELSE -(5 + g % 500) END,
           (CASE WHEN g % 2 = 0 THEN 'charge_paid' ELSE 'fee' END)::"StatementType"
         FROM generate_series($2::int + 1, $3::int) AS g`,
        [BENCH_COMPANY, entries, rows],
      );
      await client.query(`DELETE FROM ledger_daily_totals WHERE company_id = $1`, [BENCH_COMPANY]);
      await client.query(
        `INSERT INTO ledger_daily_totals (company_id, date, credits, debits)
         SELECT company_id, date, COALESCE(SUM(amount) FILTER (WHERE amount > 0), 0), COALESCE(-SUM(amount) FILTER (WHERE amount < 0), 0)
         FROM statement_entries WHERE company_id = $1 GROUP BY company_id, date`,
        [BENCH_COMPANY],
      );
      log(`statement entries seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
}
