-- Issue 34: the agencies' request log is bounded in bytes, per line and per agency, not only in lines.
-- Each line records its size (the bytes of its values as the service writes them), and the index the
-- pruning scans per agency carries it, so that an agency's newest lines are summed from the index alone.
ALTER TABLE "request_log" ADD COLUMN "size_bytes" INTEGER NOT NULL DEFAULT 0;

-- Lines written before the bound keep what the contract now declares for every line: at most 5
-- details of at most 200 printable-ASCII characters (others written '?'), an error code of at most 64.
-- A line whose first path parameter is not in the percent-encoded form now recorded (a value with
-- spaces, accents or control characters: a request that named nothing) is dropped, not rewritten.
DELETE FROM "request_log" WHERE "resource_id" !~ '^[A-Za-z0-9%._~!*''()-]{0,100}$';
UPDATE "request_log" SET
  "error_code" = left("error_code", 64),
  "error_details" = ARRAY(
    SELECT left(regexp_replace(detail, '[^ -~]', '?', 'g'), 200)
    FROM unnest("error_details") WITH ORDINALITY AS d(detail, n) WHERE n <= 5 ORDER BY n
  )
WHERE cardinality("error_details") > 0;
UPDATE "request_log" SET "size_bytes" = octet_length(jsonb_build_array(
  "company_id", "credential_id", "credential_name", "method", "path", "operation_id", 0, "resource_id", "status",
  "error_code", to_jsonb("error_details"), "correlation_id", "idempotency_key", "idempotent_replay", "duration_ms", "source_address"
)::text);

DROP INDEX "request_log_company_id_at_id_idx";
CREATE INDEX "request_log_company_id_at_id_size_bytes_idx" ON "request_log"("company_id", "at" DESC, "id" DESC, "size_bytes");
