-- A day's totals (ledger_daily_totals) were numeric(16,2): one hundred entries of the largest
-- amount an entry may carry (999,999,999,999.99, statement_entries.amount numeric(14,2)) filled
-- them, and the 101st posting of a day failed. numeric(38,2) holds 10^24 such entries a day, far
-- beyond what any posting rate can reach. Widening a numeric with the same scale rewrites nothing
-- (PostgreSQL only updates the catalogue), and the check constraints stay as they are.
ALTER TABLE "ledger_daily_totals"
    ALTER COLUMN "credits" SET DATA TYPE DECIMAL(38,2),
    ALTER COLUMN "debits" SET DATA TYPE DECIMAL(38,2);
