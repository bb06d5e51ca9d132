-- The trigram index behind the tenant-name search takes new guarantees into a pending list first, and
-- every search reads that list in full. With PostgreSQL's default limit (4 MB) an agency's creates
-- grew it to megabytes between vacuums, which added about half again to a selective name search
-- (bench/results.md). With a 512 kB limit the list stays within 64 pages: the insert that fills it
-- merges it into the index (measured: no loss in create throughput).
ALTER INDEX "rental_insurances_tenant_name_search_trgm_idx" SET (gin_pending_list_limit = 512);
