-- Issue 26 item 1: the agency's request log (GET /v1/request-log), written behind the answers in
-- batches and pruned after 7 days or beyond the agency's bound.
CREATE TABLE "request_log" (
    "id" BIGSERIAL NOT NULL,
    "company_id" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "method" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "resource_id" TEXT,
    "operation_id" TEXT NOT NULL,
    "status" SMALLINT NOT NULL,
    "error_code" TEXT,
    "error_details" TEXT[],
    "correlation_id" TEXT NOT NULL,
    "idempotency_key" TEXT,
    "idempotent_replay" BOOLEAN,
    "duration_ms" REAL NOT NULL,
    "credential_id" UUID NOT NULL,
    "credential_name" TEXT NOT NULL,
    "source_address" TEXT NOT NULL,

    CONSTRAINT "request_log_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "request_log_company_id_at_id_idx" ON "request_log"("company_id", "at" DESC, "id" DESC);

CREATE INDEX "request_log_at_idx" ON "request_log"("at");
