-- Issue 38: how many statement entries a company has per day and type, so that a page of statement
-- entries counts its matches (totalElements) from at most 7 rows per day of its range instead of
-- reading every matching entry (31,000 index and heap entries for 31 days of 1,000 a day).
-- Kept by a trigger, not by the service's statements: every writer of entries keeps it right,
-- including a process of the previous release during a rolling deploy.

CREATE TABLE "statement_entry_counts" (
    "company_id" TEXT NOT NULL,
    "date" DATE NOT NULL,
    "type" "StatementType" NOT NULL,
    "entries" BIGINT NOT NULL,

    CONSTRAINT "statement_entry_counts_pkey" PRIMARY KEY ("company_id", "date", "type")
);

-- One upsert per inserting statement, over the statement's new rows grouped (a bulk insert costs one
-- grouped upsert, not one per row), in key order so that two postings cannot deadlock. The ledger
-- is append-only (migration 20261122010000), so inserts are the only changes to count.
-- Prisma's migration runner splits a script at every semicolon, so the bodies below are escape
-- strings whose semicolons are written \073.
CREATE FUNCTION "statement_entry_counts_track"() RETURNS trigger
LANGUAGE plpgsql AS E'BEGIN INSERT INTO statement_entry_counts AS c (company_id, date, type, entries) SELECT company_id, date, type, count(*) FROM inserted GROUP BY company_id, date, type ORDER BY company_id, date, type ON CONFLICT (company_id, date, type) DO UPDATE SET entries = c.entries + EXCLUDED.entries\073 RETURN NULL\073 END';

-- The trigger and the counts of the entries that already exist, in one transaction that holds off
-- postings meanwhile (the runner does not wrap a script in one): none is counted twice or missed.
DO E'BEGIN LOCK TABLE statement_entries IN SHARE MODE\073 CREATE TRIGGER statement_entry_counts_track AFTER INSERT ON statement_entries REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION statement_entry_counts_track()\073 INSERT INTO statement_entry_counts (company_id, date, type, entries) SELECT company_id, date, type, count(*) FROM statement_entries GROUP BY company_id, date, type\073 END';
