/**
 * Writes one batch of request log lines in one statement: the batch goes as one jsonb parameter,
 * an array of lines, each line an array of its values in the column order below, which PostgreSQL
 * unpacks by position. Positions rather than named fields, because Prisma's client carries a
 * parameter through its query compiler byte by byte, and the field names were 40% of a line's
 * bytes: a get by id keeps 1.08 of its throughput with the lines written this way (bench/results.md,
 * "The request log's batch"). Not Prisma's `createMany`: it cost 0.2 ms of CPU per line. The column
 * list is the request_log table's (prisma/schema.prisma, RequestLogLine); the request log tests
 * write lines through here and read every field back. A line's size (what the agency's bound in
 * bytes sums) is its values' bytes as the database writes them, measured there: nothing on this side.
 */
import type { Database } from '../database/prisma-client';
import type { RequestLogLine } from '../http/request-log-line';

export async function insertLines(db: Database, lines: readonly RequestLogLine[]): Promise<void> {
  await db.$executeRaw`
    INSERT INTO request_log (company_id, credential_id, credential_name, method, path, operation_id, at, resource_id, status,
      error_code, error_details, correlation_id, idempotency_key, idempotent_replay, duration_ms, source_address, size_bytes)
    SELECT l->>0, (l->>1)::uuid, l->>2, l->>3, l->>4, l->>5, timestamptz 'epoch' + (l->>6)::bigint * interval '1 millisecond',
      l->>7, (l->>8)::smallint, l->>9, ARRAY(SELECT jsonb_array_elements_text(l->10)), l->>11, l->>12, (l->>13)::boolean,
      (l->>14)::real, l->>15, octet_length(l::text)
    FROM jsonb_array_elements(${JSON.stringify(lines.map(valuesOf))}::jsonb) l`;
}

/** A line's values in the statement's column order; `at` in milliseconds since the epoch. */
function valuesOf(line: RequestLogLine): unknown[] {
  return [
    line.companyId,
    line.credentialId,
    line.credentialName,
    line.method,
    line.path,
    line.operationId,
    line.at.getTime(),
    line.resourceId,
    line.status,
    line.errorCode,
    line.errorDetails,
    line.correlationId,
    line.idempotencyKey,
    line.idempotentReplay,
    line.durationMs,
    line.sourceAddress,
  ];
}
