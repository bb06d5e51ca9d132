-- Issue 34 item 5: a scheduled step that failed for one guarantee waits before it is tried again
-- (growing delays), so that a guarantee that always fails never fills the runs' batches. Shared by
-- every process that runs the scheduler. A success deletes the row, housekeeping the stale ones.
CREATE TABLE "scheduled_step_failures" (
    "job" TEXT NOT NULL,
    "rental_insurance_id" BIGINT NOT NULL,
    "attempts" INTEGER NOT NULL,
    "first_failed_at" TIMESTAMPTZ(3) NOT NULL,
    "retry_at" TIMESTAMPTZ(3) NOT NULL,
    "last_error" TEXT NOT NULL,

    CONSTRAINT "scheduled_step_failures_pkey" PRIMARY KEY ("job","rental_insurance_id")
);

CREATE INDEX "scheduled_step_failures_retry_at_idx" ON "scheduled_step_failures"("retry_at");
