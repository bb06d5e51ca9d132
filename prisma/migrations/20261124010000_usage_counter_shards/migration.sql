-- The per-agency usage counters (write responses stored per hour, comments per day) were one row
-- per agency and period: every write of one agency updated the same row and held its lock through
-- COMMIT, so one agency's concurrent writes ran one at a time. Like guarantee_status_counts, they are
-- spread over 16 shards, chosen by the writing connection (pg_backend_pid() % 16), so that concurrent
-- transactions, which run on different connections, seldom meet, and a check sums the shards.
ALTER TABLE "idempotency_usage" ADD COLUMN "shard" SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE "idempotency_usage" DROP CONSTRAINT "idempotency_usage_pkey";
ALTER TABLE "idempotency_usage" ADD CONSTRAINT "idempotency_usage_pkey" PRIMARY KEY ("company_id", "hour", "shard");

ALTER TABLE "comment_quota_usage" ADD COLUMN "shard" SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE "comment_quota_usage" DROP CONSTRAINT "comment_quota_usage_pkey";
ALTER TABLE "comment_quota_usage" ADD CONSTRAINT "comment_quota_usage_pkey" PRIMARY KEY ("company_id", "day", "shard");
