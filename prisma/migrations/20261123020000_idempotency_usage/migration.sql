-- Write responses an agency stored per hour (src/http/idempotency-store.ts), for the cap on stored
-- responses per agency within the retention window.
CREATE TABLE "idempotency_usage" (
    "company_id" TEXT NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "idempotency_usage_pkey" PRIMARY KEY ("company_id","hour")
);
