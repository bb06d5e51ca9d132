-- The daily comment quota of an agency (src/guarantees/comment-quota.ts): one row per agency and
-- calendar day, incremented in the comment's own transaction.
CREATE TABLE "comment_quota_usage" (
    "company_id" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "comment_quota_usage_pkey" PRIMARY KEY ("company_id","day")
);
