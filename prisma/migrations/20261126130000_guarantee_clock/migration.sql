-- Issue 26 item 2 (sandbox time travel): how far a guarantee clock runs ahead of the wall clock, in
-- milliseconds. 0 for every guarantee but those a partner advanced in the sandbox, and only the sandbox
-- advance-clock operation raises it. Additive (a constant default: no table rewrite), and a previous
-- release ignores it. Its index is built concurrently by the migration 20261126150000_guarantee_clock_index.
ALTER TABLE "rental_insurances" ADD COLUMN "clock_offset_ms" BIGINT NOT NULL DEFAULT 0;
