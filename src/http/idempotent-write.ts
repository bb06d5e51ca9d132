/**
 * Every POST, PATCH and DELETE runs here, in one Prisma transaction:
 *  - the key is claimed first (idempotency-store.ts): a finished write with the same key is
 *    replayed (or refused when the request differs), a running one is 409;
 *  - then the write itself, and its 2xx outcome is stored in the same transaction, so both commit
 *    or neither does; a failure stores nothing and the key may be used again;
 *  - the write runs on a unit of work of that transaction (database/unit-of-work.ts), which writes
 *    the history entries and events the write appended in its last statement, given the outcome to
 *    write beside them (saveRecord).
 * Traced as the spans pipeline.idempotency_claim and pipeline.final_statement (tracing/tracing.ts).
 */
import type { Database } from '../database/prisma-client';
import { ApiError } from '../errors';
import { SerializedJson, type HttpResult } from './http-result';
import { keyInUse, replayedHeadersOf, replayOrRefuse } from './idempotency';
import { claimKey, forgetRecord, saveRecord } from './idempotency-store';
import { metrics } from '../observability/metrics';
import { UnitOfWork } from '../database/unit-of-work';
import { inSpan } from '../tracing/tracing';

export interface IdempotentWrite {
  companyId: string;
  key: string;
  fingerprint: string;
}

export interface IdempotencyOptions {
  retentionHours: number;
  /** Responses one company may have stored within the retention window; beyond it, 429. */
  recordsPerCompany: number;
  /** How long a write waits for a pooled connection to start its transaction. */
  transactionWaitMs: number;
}

export async function runIdempotentWrite(
  db: Database,
  write: IdempotentWrite,
  options: IdempotencyOptions,
  run: (unit: UnitOfWork) => Promise<HttpResult>,
): Promise<HttpResult> {
  const { companyId, key, fingerprint } = write;
  const retentionStart = new Date(Date.now() - options.retentionHours * 3_600_000);
  const outcome = await db
    .$transaction(
      async (tx) => {
        const claim = await inSpan('pipeline.idempotency_claim', () => claimKey(tx, companyId, key, options.retentionHours));
        // A finished write is replayed whether or not its lock is free, so retries of the same
        // request never queue behind each other nor get 409 once the first one has committed.
        if (claim.record && claim.record.createdAt > retentionStart) {
          const replayed = replayOrRefuse(claim.record, fingerprint);
          metrics.idempotency.inc({ outcome: 'replayed' });
          return replayed;
        }
        if (!claim.locked) throw keyInUse();
        if (claim.stored >= options.recordsPerCompany) throw storageQuotaExceeded(options.recordsPerCompany);
        if (claim.record) await forgetRecord(tx, companyId, key);
        const unit = UnitOfWork.of(tx);
        const result = await run(unit);
        const bodyText = result.body === undefined ? null : JSON.stringify(result.body);
        const responseHeaders = replayedHeadersOf(result.headers ?? {});
        const record = { fingerprint, responseStatus: result.status, responseHeaders, responseBody: bodyText };
        // Two writes with one key that did not exclude each other (beside a process of an older
        // version, whose lock id differed, during a rolling deploy): the first record committed;
        // this write rolls back entirely and is told to retry, which replays the first.
        if (!(await inSpan('pipeline.final_statement', () => saveRecord(unit, companyId, key, record)))) throw keyInUse();
        return {
          ...result,
          body: bodyText === null ? undefined : new SerializedJson(bodyText),
          headers: { ...result.headers, 'Idempotent-Replay': 'false' },
        };
      },
      { maxWait: options.transactionWaitMs, timeout: 20_000 },
    )
    .catch((error: unknown) => {
      const code = error instanceof ApiError ? error.code : undefined;
      if (code === 'idempotency_key_in_use') metrics.idempotency.inc({ outcome: 'key_in_use' });
      if (code === 'idempotency_key_reused') metrics.idempotency.inc({ outcome: 'key_reused' });
      throw error;
    });
  if (outcome.headers?.['Idempotent-Replay'] === 'false') metrics.idempotency.inc({ outcome: 'executed' });
  // Committed: only now may the first response show what is never stored.
  const { revealOnce, ...result } = outcome;
  if (!revealOnce || !(result.body instanceof SerializedJson)) return result;
  return { ...result, body: revealOnce(JSON.parse(result.body.text)) };
}

/** The company stored as many responses as its cap allows within the retention window: writes wait for the oldest hour to pass. */
function storageQuotaExceeded(cap: number): ApiError {
  return new ApiError(
    429,
    'idempotency_quota_exceeded',
    `This agency stored ${cap} write responses within the retention window; retry later.`,
    undefined,
    {
      'Retry-After': '3600',
    },
  );
}
