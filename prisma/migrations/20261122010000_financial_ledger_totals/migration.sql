-- Financial ledger (issue #6): per-company per-day totals of the append-only statement entries.

-- CreateTable
CREATE TABLE "ledger_daily_totals" (
    "company_id" TEXT NOT NULL,
    "date" DATE NOT NULL,
    "credits" DECIMAL(16,2) NOT NULL DEFAULT 0,
    "debits" DECIMAL(16,2) NOT NULL DEFAULT 0,

    CONSTRAINT "ledger_daily_totals_pkey" PRIMARY KEY ("company_id","date")
);

-- Written by hand below: rules Prisma's schema cannot express.

-- Both totals are sums of absolute values.
ALTER TABLE "ledger_daily_totals"
    ADD CONSTRAINT "ledger_daily_totals_credits_check" CHECK ("credits" >= 0),
    ADD CONSTRAINT "ledger_daily_totals_debits_check" CHECK ("debits" >= 0);

-- An entry's amount is never 0 and its sign follows its type: credits positive, debits negative.
ALTER TABLE "statement_entries"
    ADD CONSTRAINT "statement_entries_amount_sign_check" CHECK (
        CASE WHEN "type" IN ('charge_paid', 'revenue_shared', 'transfer_refunded', 'transfer_received')
             THEN "amount" > 0
             ELSE "amount" < 0
        END
    );

-- The ledger is append-only: a correction is a new entry. Updates and deletes would also make
-- ledger_daily_totals wrong, so the database refuses them.
-- Prisma's migration runner splits a script at every semicolon (it knows neither dollar quoting nor
-- quoted strings), so the function body is an escape string whose one semicolon is written \073.
CREATE FUNCTION "statement_entries_append_only"() RETURNS trigger
LANGUAGE plpgsql AS E'BEGIN RAISE EXCEPTION ''statement_entries is append-only: % refused (post a correcting entry instead)'', TG_OP USING ERRCODE = ''restrict_violation''\073 END';

CREATE TRIGGER "statement_entries_append_only"
    BEFORE UPDATE OR DELETE ON "statement_entries"
    FOR EACH ROW EXECUTE FUNCTION "statement_entries_append_only"();

-- Totals of any entries that already exist.
INSERT INTO "ledger_daily_totals" ("company_id", "date", "credits", "debits")
SELECT "company_id",
       "date",
       COALESCE(SUM("amount") FILTER (WHERE "amount" > 0), 0),
       COALESCE(-SUM("amount") FILTER (WHERE "amount" < 0), 0)
FROM "statement_entries"
GROUP BY "company_id", "date";
