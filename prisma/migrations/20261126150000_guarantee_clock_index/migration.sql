-- The sandbox scheduler finds the few time-travelled guarantees (issue 26 item 2) by this partial index
-- (not in schema.prisma, which cannot state one). Built concurrently, alone in its migration (CONCURRENTLY
-- cannot run in the transaction a multi-statement script gets), so that writes to the table go on
-- while it is built. IF NOT EXISTS: databases migrated before this split built it in 20261126130000.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "rental_insurances_time_travelled_idx" ON "rental_insurances" ("id") WHERE "clock_offset_ms" <> 0
