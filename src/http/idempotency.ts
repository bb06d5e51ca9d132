/**
 * Idempotent writes. Every POST, PATCH and DELETE of the partner API runs here:
 *  - the key is scoped to the company; the fingerprint is method + path + canonical JSON body;
 *  - the request runs in one database transaction that first takes a transaction-level advisory
 *    lock on (company, key): a concurrent request with the same key, in any service process, gets
 *    409 idempotency_key_in_use at once, and a crashed process releases the lock with its connection;
 *  - a 2xx outcome is stored in the same transaction as its effect, so both commit or neither does;
 *  - a failure stores nothing and the key may be used again.
 */
import { createHash } from 'node:crypto';
import type { Database } from '../database/prisma-client';
import { inlineParameters, inSqlTransaction, sqlOf, type AnyTransaction, type SqlTransaction } from '../database/sql';
import { BadRequest, Conflict } from '../errors';
import { header, type HttpResult, type OperationContext, type WriteHandler } from './operation';

/** Response headers that belong to the stored outcome and are replayed with it. */
const REPLAYED_HEADERS = ['ETag', 'Service-Effects', 'Location'];

export interface IdempotencyOptions {
  retentionHours: number;
}

export async function runIdempotentWrite(
  db: Database,
  ctx: OperationContext,
  handler: WriteHandler,
  options: IdempotencyOptions,
): Promise<HttpResult> {
  const key = parseIdempotencyKey(header(ctx, 'idempotency-key'));
  const companyId = ctx.principal.companyId;
  const fingerprint = fingerprintOf(ctx);
  const retentionStart = new Date(Date.now() - options.retentionHours * 3_600_000);
  const lock = lockIdOf(companyId, key);
  const claimed = async (tx: AnyTransaction, claim: Claim, run: () => Promise<HttpResult>): Promise<HttpResult> => {
    // A finished write is replayed whether or not its lock was free, so retries of the same
    // request never queue behind each other nor get 409 once the first one has committed.
    if (claim.record && claim.record.createdAt > retentionStart) return replayOrRefuse(claim.record, fingerprint);
    if (!claim.locked) {
      throw new Conflict('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry shortly.', {
        'Retry-After': '1',
      });
    }
    if (claim.record) await sqlOf(tx).rows('DELETE FROM idempotency_records WHERE company_id = $1 AND key = $2', [companyId, key]);

    const result = await run();
    const bodyText = result.body === undefined ? null : JSON.stringify(result.body);
    const replayedHeaders = pickReplayedHeaders(result.headers ?? {});
    // Nothing reads the record before the end of the transaction: it can travel with COMMIT.
    await sqlOf(tx).writeAtCommit(
      `INSERT INTO idempotency_records (company_id, key, fingerprint, response_status, response_headers, response_body)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6)`,
      [companyId, key, fingerprint, result.status, JSON.stringify(replayedHeaders), bodyText],
    );
    return {
      ...result,
      body: bodyText === null ? undefined : new SerializedJson(bodyText),
      headers: { ...result.headers, 'Idempotent-Replay': 'false' },
    };
  };
  const outcome =
    'onSqlTransaction' in handler
      ? await inSqlTransaction(db, claimStatements(lock, companyId, key), (tx: SqlTransaction, opened) =>
          claimed(tx, claimOf(opened), () => handler(ctx, tx)),
        )
      : await db.$transaction(async (tx) => claimed(tx, await claimKey(tx, lock, companyId, key), () => handler(ctx, tx)), {
          maxWait: 10_000,
          timeout: 20_000,
        });
  // Committed: only now may the first response show what is never stored.
  const { firstResponseOnly, ...result } = outcome;
  if (!firstResponseOnly || !(result.body instanceof SerializedJson)) return result;
  return { ...result, body: firstResponseOnly(JSON.parse(result.body.text)) };
}

interface StoredOutcome {
  fingerprint: string;
  responseStatus: number;
  responseHeaders: Record<string, string>;
  responseBody: string | null;
  createdAt: Date;
}

/**
 * The key's transaction-level advisory lock, tried without waiting (a concurrent request with the
 * same key, in any process, is answered 409 at once; a crashed process releases it with its
 * connection), then the key's record, read after the lock so that it includes any write that
 * finished meanwhile (each statement reads its own snapshot).
 */
interface Claim {
  locked: boolean;
  record: StoredOutcome | undefined;
}

const CLAIM_LOCK = 'SELECT pg_try_advisory_xact_lock($1) AS locked';
const CLAIM_RECORD = `SELECT fingerprint, response_status AS "responseStatus", response_headers AS "responseHeaders",
  response_body AS "responseBody", created_at AS "createdAt" FROM idempotency_records WHERE company_id = $1 AND key = $2`;

/** In our own transaction the claim travels with BEGIN: one round trip, so its values are inlined. */
function claimStatements(lock: bigint, companyId: string, key: string): string[] {
  return [inlineParameters(CLAIM_LOCK, [lock]), inlineParameters(CLAIM_RECORD, [companyId, key])];
}

function claimOf(opened: unknown[][]): Claim {
  const [lockRows, recordRows] = opened as [Array<{ locked: boolean }>, StoredOutcome[]];
  return { locked: lockRows[0]?.locked === true, record: recordRows[0] };
}

async function claimKey(tx: AnyTransaction, lock: bigint, companyId: string, key: string): Promise<Claim> {
  const lockRows = await sqlOf(tx).rows<{ locked: boolean }>(CLAIM_LOCK, [lock]);
  const recordRows = await sqlOf(tx).rows<StoredOutcome>(CLAIM_RECORD, [companyId, key]);
  return claimOf([lockRows, recordRows]);
}

/** A body already serialised: sent as is, so a replay is byte-for-byte the first response. */
export class SerializedJson {
  constructor(readonly text: string) {}
}

function replayOrRefuse(stored: StoredOutcome, fingerprint: string): HttpResult {
  if (stored.fingerprint !== fingerprint) {
    throw new BadRequest(
      'idempotency_key_reused',
      'This Idempotency-Key was already used for a different request; use a new key for a new write.',
      ['Idempotency-Key: already used with another method, path or body'],
    );
  }
  return replay(stored.responseStatus, stored.responseHeaders, stored.responseBody);
}

function replay(status: number, headers: Record<string, string>, body: string | null): HttpResult {
  return {
    status,
    headers: { ...headers, 'Idempotent-Replay': 'true' },
    body: body === null ? undefined : new SerializedJson(body),
  };
}

function pickReplayedHeaders(headers: Record<string, string>): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) if (headers[name] !== undefined) picked[name] = headers[name];
  return picked;
}

/** 1 to 255 visible ASCII characters; the structured-field string form `"abc"` is unquoted first. */
export function parseIdempotencyKey(raw: string | undefined): string {
  if (raw === undefined) {
    throw new BadRequest('idempotency_key_required', 'This write requires an Idempotency-Key header.', [
      'Idempotency-Key: is required',
    ]);
  }
  let key = raw.trim();
  if (key.length >= 2 && key.startsWith('"') && key.endsWith('"')) key = key.slice(1, -1).replace(/\\(["\\])/g, '$1');
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new BadRequest('idempotency_key_invalid', 'The Idempotency-Key must be 1 to 255 visible ASCII characters.', [
      'Idempotency-Key: must be 1 to 255 visible ASCII characters',
    ]);
  }
  return key;
}

function lockIdOf(companyId: string, key: string): bigint {
  return createHash('sha256').update(companyId).update('\0').update(key).digest().readBigInt64BE(0);
}

function fingerprintOf(ctx: OperationContext): string {
  return createHash('sha256')
    .update(`${ctx.request.method.toUpperCase()} ${ctx.request.path}\n`)
    .update(canonicalJson(ctx.request.body))
    .digest('base64url');
}

/** JSON with object keys sorted at every level, so key order and whitespace do not matter. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return '';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  const entries = Object.keys(value as object)
    .sort()
    .map((name) => `${JSON.stringify(name)}:${canonicalJson((value as Record<string, unknown>)[name])}`);
  return `{${entries.join(',')}}`;
}
