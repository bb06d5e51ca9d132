/**
 * The growth dataset's ledger: ENTRIES_PER_GUARANTEE statement entries per guarantee of each agency
 * (30,000,000 for 10,000,000 guarantees), spread evenly over the LEDGER_DAYS days before the anchor and
 * inserted day by day across agencies, as postings arrive. Rents paid, fees, revenue shares and
 * transfers, signed from the agency's view (credits positive), as src/financial/ledger-rules.ts signs them.
 */

export const ENTRIES_PER_GUARANTEE = 3;
export const LEDGER_DAYS = 1095;

/** Slice $1 of $2 of every agency's entries; $3 the anchor's date (the newest day of entries). */
export const INSERT_ENTRY_SLICE = `
INSERT INTO statement_entries (company_id, date, description, amount, type, created_at)
SELECT x.company_id, x.date,
  CASE x.type WHEN 'charge_paid' THEN 'Aluguel recebido' WHEN 'fee' THEN 'Tarifa de serviço' WHEN 'revenue_shared' THEN 'Repasse de receita'
    WHEN 'transfer_sent' THEN 'Transferência para conta da imobiliária' WHEN 'charge_refunded' THEN 'Estorno de aluguel'
    WHEN 'transfer_refunded' THEN 'Transferência devolvida' ELSE 'Transferência recebida' END || ' ' || x.key,
  CASE WHEN x.type IN ('charge_paid', 'revenue_shared', 'transfer_refunded', 'transfer_received') THEN x.amount ELSE -x.amount END,
  x.type::"StatementType", x.date + interval '9 hours' + x.v * interval '10 hours'
FROM (
  SELECT a.company_id, a.rank::bigint * 10000000 + k AS key,
    $3::date - ${LEDGER_DAYS - 1} + floor((k + growth_seed.u(a.rank::bigint * 10000000 + k, 40)) / (a.guarantees * ${ENTRIES_PER_GUARANTEE}) * ${LEDGER_DAYS})::int AS date,
    growth_seed.u(a.rank::bigint * 10000000 + k, 42) AS v,
    CASE WHEN t < 0.45 THEN 'charge_paid' WHEN t < 0.65 THEN 'fee' WHEN t < 0.75 THEN 'revenue_shared' WHEN t < 0.90 THEN 'transfer_sent'
         WHEN t < 0.93 THEN 'charge_refunded' WHEN t < 0.95 THEN 'transfer_refunded' ELSE 'transfer_received' END AS type,
    round((CASE WHEN t < 0.45 OR (t >= 0.90 AND t < 0.93) THEN 800 + growth_seed.u(a.rank::bigint * 10000000 + k, 42) * 6000
                WHEN t < 0.65 THEN 20 + growth_seed.u(a.rank::bigint * 10000000 + k, 42) * 280
                WHEN t < 0.75 THEN 20 + growth_seed.u(a.rank::bigint * 10000000 + k, 42) * 480
                ELSE 1000 + growth_seed.u(a.rank::bigint * 10000000 + k, 42) * 19000 END)::numeric, 2) AS amount
  FROM growth_seed.agencies a,
       generate_series(ceil(a.guarantees * ${ENTRIES_PER_GUARANTEE} * $1::int / $2::numeric)::int,
                       ceil(a.guarantees * ${ENTRIES_PER_GUARANTEE} * ($1::int + 1) / $2::numeric)::int - 1) AS k,
       LATERAL (SELECT growth_seed.u(a.rank::bigint * 10000000 + k, 41) AS t) AS kind
) x
ORDER BY x.date, x.key`;

/**
 * The per-day totals of every growth agency, from their entries (as bench/seed.ts rebuilds the bench
 * agency's), inserted day after day as the service inserts them (a day's row comes with its first
 * posting): an agency's days lie one per page or so among the other agencies', as they would.
 */
export const REBUILD_DAILY_TOTALS = `
INSERT INTO ledger_daily_totals (company_id, date, credits, debits)
SELECT e.company_id, e.date, COALESCE(SUM(e.amount) FILTER (WHERE e.amount > 0), 0), COALESCE(-SUM(e.amount) FILTER (WHERE e.amount < 0), 0)
FROM statement_entries e JOIN growth_seed.agencies a ON a.company_id = e.company_id
GROUP BY e.date, e.company_id
ORDER BY e.date, e.company_id`;

/** The status counts of every growth agency, rebuilt after the bulk load (the trigger was off, as in bench/seed.ts). */
export const REBUILD_STATUS_COUNTS = `
INSERT INTO guarantee_status_counts (company_id, status, shard, count)
SELECT r.company_id, r.status, (r.id % 16)::smallint, count(*)
FROM rental_insurances r JOIN growth_seed.agencies a ON a.company_id = r.company_id
GROUP BY 1, 2, 3`;
