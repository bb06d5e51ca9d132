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
import { header, isSqlWriteHandler, type HttpResult, type OperationContext, type RequestContext, type WriteHandler } from './operation';
import type { Principal, StoredToken } from '../auth/bearer-guard';
import { DeferredBearer } from '../auth/deferred-bearer';

/** Response headers that belong to the stored outcome and are replayed with it. */
const REPLAYED_HEADERS = ['ETag', 'Service-Effects', 'Location'];

export interface IdempotencyOptions {
  retentionHours: number;
}

/**
 * `caller` is the token that a write in our own transaction checks in the round trip of its BEGIN
 * (SQL handlers), or the principal of a write whose token was checked already (Prisma handlers).
 */
export async function runIdempotentWrite(
  db: Database,
  request: RequestContext,
  caller: Principal | DeferredBearer,
  handler: WriteHandler,
  options: IdempotencyOptions,
): Promise<HttpResult> {
  const key = parseIdempotencyKey(header(request, 'idempotency-key'));
  const fingerprint = fingerprintOf(request);
  const retentionStart = new Date(Date.now() - options.retentionHours * 3_600_000);
  const claimed = async (tx: AnyTransaction, principal: Principal, claim: Claim, run: (ctx: OperationContext) => Promise<HttpResult>): Promise<HttpResult> => {
    const companyId = principal.companyId;
    // A finished write is replayed whether or not its lock was free, so retries of the same
    // request never queue behind each other nor get 409 once the first one has committed.
    if (claim.record && claim.record.createdAt > retentionStart) return replayOrRefuse(claim.record, fingerprint);
    if (!claim.locked) throw keyInUse();
    if (claim.record) await sqlOf(tx).rows('DELETE FROM idempotency_records WHERE company_id = $1 AND key = $2', [companyId, key]);

    const result = await run({ ...request, principal });
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
  const inTransaction = (): Promise<HttpResult> => {
    if (isSqlWriteHandler(handler)) {
      // BEGIN, the token's check and the claim travel in one round trip; the claim reads the
      // token's company. An unknown or refused token is 401/403 before anything is written.
      if (!(caller instanceof DeferredBearer)) throw new Error('A write in our own transaction checks its token with BEGIN');
      const opening = [caller.tokenStatement(), ...claimStatements(caller.companyExpression(), inlineParameters('$1', [key]))];
      return inSqlTransaction(db, opening, async (tx: SqlTransaction, [tokenRows, ...claimRows]) => {
        const principal = caller.accept(tokenRows![0] as StoredToken | undefined);
        return claimed(tx, principal, claimOf(claimRows), (ctx) => handler(ctx, tx));
      });
    }
    if (caller instanceof DeferredBearer) throw new Error('A Prisma write handler needs its principal before its transaction');
    return db.$transaction(async (tx) => claimed(tx, caller, await claimKey(tx, caller.companyId, key), (ctx) => handler(ctx, tx)), {
      maxWait: 10_000,
      timeout: 20_000,
    });
  };
  const outcome = await inTransaction().catch((error: unknown) => {
    // Two writes with one key that did not exclude each other (beside a process of an older
    // version, whose lock id differed, during a rolling deploy): the record's primary key let one
    // commit; this one rolled back entirely and is told to retry, which replays the first.
    throw isRecordClash(error) ? keyInUse() : error;
  });
  // Committed: only now may the first response show what is never stored.
  const { firstResponseOnly, ...result } = outcome;
  if (!firstResponseOnly || !(result.body instanceof SerializedJson)) return result;
  return { ...result, body: firstResponseOnly(JSON.parse(result.body.text)) };
}

function keyInUse(): Conflict {
  return new Conflict('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry shortly.', {
    'Retry-After': '1',
  });
}

/** The idempotency record's primary key refused a second record (pg error, or Prisma's raw-query error that quotes it). */
function isRecordClash(error: unknown): boolean {
  const { code, constraint, message } = error as { code?: string; constraint?: string; message?: string };
  return (code === '23505' && constraint === 'idempotency_records_pkey') || (typeof message === 'string' && message.includes('idempotency_records_pkey'));
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

/**
 * The claim's two statements for the SQL expressions of a company and a key. The lock's id is
 * computed by PostgreSQL from both (length-prefixed, so no two pairs share a text), the same way
 * on every path, so that any two processes writing with one key exclude each other.
 */
export const claimLock = (company: string, key: string) =>
  `SELECT pg_try_advisory_xact_lock(hashtextextended(length(${company}) || ':' || ${company} || ${key}, 0)) AS locked`;
const claimRecord = (company: string, key: string) => `SELECT fingerprint, response_status AS "responseStatus", response_headers AS "responseHeaders",
  response_body AS "responseBody", created_at AS "createdAt" FROM idempotency_records WHERE company_id = ${company} AND key = ${key}`;

/** In our own transaction the claim travels with BEGIN: one round trip, so its values come inlined. */
function claimStatements(company: string, key: string): string[] {
  return [claimLock(company, key), claimRecord(company, key)];
}

function claimOf(opened: unknown[][]): Claim {
  const [lockRows, recordRows] = opened as [Array<{ locked: boolean | null }>, StoredOutcome[]];
  return { locked: lockRows[0]?.locked === true, record: recordRows[0] };
}

async function claimKey(tx: AnyTransaction, companyId: string, key: string): Promise<Claim> {
  const lockRows = await sqlOf(tx).rows<{ locked: boolean }>(claimLock('$1::text', '$2::text'), [companyId, key]);
  const recordRows = await sqlOf(tx).rows<StoredOutcome>(claimRecord('$1', '$2'), [companyId, key]);
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

function fingerprintOf(ctx: RequestContext): string {
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
