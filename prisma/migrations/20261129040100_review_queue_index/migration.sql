-- Issue 37: the reviewers' queue (guarantees waiting for review or information, oldest first) reads
-- this index. Built concurrently, alone in its migration (CONCURRENTLY cannot run in the transaction
-- a multi-statement script gets), so that writes to the table go on while it is built.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "rental_insurances_status_updated_at_id_idx" ON "rental_insurances" ("status", "updated_at", "id")
