/**
 * Writes one batch of request log lines in one statement. Not Prisma's `createMany`: it cost the
 * service 0.2 ms of CPU per line (10 batches of 500: about 1,000 ms of CPU, against 80 ms here),
 * and a get kept only 0.64 of its throughput with the log on (bench/results.md). The batch goes
 * as one JSON parameter that PostgreSQL unpacks with json_to_recordset; the column list below is
 * the request_log table's (prisma/schema.prisma, RequestLogLine), checked by the request log tests.
 */
import type { Database } from '../database/prisma-client';
import type { RequestLogLine } from './request-log-line';

export async function insertLines(db: Database, lines: readonly RequestLogLine[]): Promise<void> {
  await db.$executeRaw`
    INSERT INTO request_log (company_id, at, method, path, resource_id, operation_id, status, error_code, error_details,
      correlation_id, idempotency_key, idempotent_replay, duration_ms, credential_id, credential_name, source_address)
    SELECT "companyId", at, method, path, "resourceId", "operationId", status, "errorCode",
      ARRAY(SELECT json_array_elements_text("errorDetails")), "correlationId", "idempotencyKey", "idempotentReplay",
      "durationMs", "credentialId", "credentialName", "sourceAddress"
    FROM json_to_recordset(${JSON.stringify(lines)}::json) AS t("companyId" text, at timestamptz, method text, path text,
      "resourceId" text, "operationId" text, status smallint, "errorCode" text, "errorDetails" json, "correlationId" text,
      "idempotencyKey" text, "idempotentReplay" boolean, "durationMs" real, "credentialId" uuid, "credentialName" text,
      "sourceAddress" text)`;
}
