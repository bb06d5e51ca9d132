-- Per-company, per-status guarantee counts, kept by a trigger in the same transaction as every
-- insert, status change and delete, so that a list's totalElements without filters (or with only
-- status filters) is a sum of a few rows instead of a count over a million.
-- Counts are spread over 16 shards (by guarantee id) so that concurrent creates of one company do not
-- all wait on one counter row.

CREATE TABLE "guarantee_status_counts" (
    "company_id" TEXT NOT NULL,
    "status" "RentalInsuranceStatus" NOT NULL,
    "shard" SMALLINT NOT NULL,
    "count" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "guarantee_status_counts_pkey" PRIMARY KEY ("company_id", "status", "shard")
);

-- Prisma's migration runner splits scripts at every semicolon (even in strings), so the function
-- body is an escape string whose semicolons are written \073. Rows are touched in status order so
-- that two transactions moving guarantees between the same statuses cannot deadlock.
CREATE FUNCTION "guarantee_status_counts_track"() RETURNS trigger
LANGUAGE plpgsql AS E'BEGIN IF TG_OP = ''UPDATE'' AND OLD.status = NEW.status AND OLD.company_id = NEW.company_id THEN RETURN NULL\073 END IF\073 INSERT INTO guarantee_status_counts AS c (company_id, status, shard, count) SELECT d.company_id, d.status, d.shard, d.delta FROM (SELECT OLD.company_id AS company_id, OLD.status AS status, (OLD.id % 16)::smallint AS shard, -1::bigint AS delta WHERE TG_OP IN (''UPDATE'', ''DELETE'') UNION ALL SELECT NEW.company_id, NEW.status, (NEW.id % 16)::smallint, 1::bigint WHERE TG_OP IN (''INSERT'', ''UPDATE'')) AS d ORDER BY d.status, d.company_id ON CONFLICT (company_id, status, shard) DO UPDATE SET count = c.count + EXCLUDED.count\073 RETURN NULL\073 END';

CREATE TRIGGER "guarantee_status_counts_track"
    AFTER INSERT OR UPDATE OF "status", "company_id" OR DELETE ON "rental_insurances"
    FOR EACH ROW EXECUTE FUNCTION "guarantee_status_counts_track"();

-- Counts of the guarantees that already exist.
INSERT INTO "guarantee_status_counts" ("company_id", "status", "shard", "count")
SELECT "company_id", "status", ("id" % 16)::smallint, count(*)
FROM "rental_insurances"
GROUP BY "company_id", "status", ("id" % 16)::smallint;
