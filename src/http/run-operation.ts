/**
 * The pipeline's steps after routing, authentication and validation: for a write, the
 * Idempotency-Key and If-Match are read, the key is claimed in the write's transaction, the
 * precondition finds the resource and its version is checked; then the handler runs on a
 * company-scoped unit of work; and its typed result becomes the response's headers and body.
 * Traced as the spans pipeline.precondition and pipeline.handler (tracing/tracing.ts).
 */
import type { Principal } from '../auth/principal';
import type { Database, Queryable } from '../database/prisma-client';
import { UnitOfWork } from '../database/unit-of-work';
import type { ReplicaReads } from '../database/replica-reads';
import type { HttpResult } from './http-result';
import { fingerprintOf, parseIdempotencyKey } from './idempotency';
import { runIdempotentWrite, type IdempotencyOptions } from './idempotent-write';
import type { DeclaredInput, DeclaredOperation, RequestFacts } from './operation-registry';
import type { OperationPlan } from './operation-plan';
import { assertCurrentVersion, etagOf, noneMatchHits, noneMatchHitsTag, parseIfMatch, strongTagOf } from './preconditions';
import { PreparedRepresentations } from './representations';
import { headerValue } from './header-value';
import { inSpan } from '../tracing/tracing';

export interface OperationCall<Work> {
  declared: DeclaredOperation<Work>;
  plan: OperationPlan;
  input: DeclaredInput;
  facts: RequestFacts;
  method: string;
  headers: Record<string, string | string[] | undefined>;
  /** Absent only on operations the contract declares without security. */
  principal?: Principal;
}

export interface RunOptions<Work> {
  db: Database;
  workFor: (unit: UnitOfWork, principal: Principal) => Work;
  idempotency: IdempotencyOptions;
  /** Reads the replica may serve (DATABASE_REPLICA_URL); absent: every read on `db`. */
  replicaReads?: ReplicaReads;
}

/** A handler's result as the contract types make it. */
interface TypedResult {
  status: number;
  body: unknown;
  headers?: Record<string, string | undefined>;
  version?: number;
  /** A strong entity tag instead of a version (bytes that never change: a document). */
  entityTag?: string;
  effects?: readonly string[];
  location?: string;
  revealOnce?: (storedBody: unknown) => unknown;
}

export async function runOperation<Work>(call: OperationCall<Work>, options: RunOptions<Work>): Promise<HttpResult> {
  const { declared, plan, facts, principal } = call;
  const handlerSpan = { 'rg.operation_id': declared.operationId };
  if (declared.isPublic || !principal) {
    const result = (await inSpan('pipeline.handler', () => declared.handler(call.input, undefined, facts), handlerSpan)) as TypedResult;
    return result.body instanceof PreparedRepresentations ? result.body.answer(call.headers) : httpResultOf(plan, result, facts);
  }
  // A write's key is read before its If-Match, as the contract lists their errors.
  const key = plan.isWrite ? parseIdempotencyKey(headerValue(call.headers, 'idempotency-key')) : undefined;
  const ifMatch = plan.declaresIfMatch ? parseIfMatch(headerValue(call.headers, 'if-match'), plan.requiresIfMatch) : undefined;
  // Before the transaction (and the key's claim): a slow check holds no connection and no lock.
  // A refusal of a keyed write is answered only once the key's claim shows the write is new: a
  // retry of a write that succeeded replays its answer even if the check would now refuse it (a
  // webhook host that stopped resolving, a setting changed since).
  const refusedBefore = declared.checkBefore
    ? await refusalOf(() => declared.checkBefore!(call.input, options.workFor(UnitOfWork.readOnly(options.db), principal)))
    : undefined;
  if (refusedBefore && key === undefined) throw refusedBefore.error;
  const handle = async (unit: UnitOfWork): Promise<TypedResult> => {
    if (refusedBefore) throw refusedBefore.error;
    const work = options.workFor(unit, principal);
    const precondition = declared.precondition;
    const current = precondition
      ? await inSpan('pipeline.precondition', async () => {
          const found = await precondition(call.input, work);
          if (found && ifMatch) assertCurrentVersion(ifMatch, found.version);
          return found;
        })
      : undefined;
    return (await inSpan('pipeline.handler', () => declared.handler({ ...call.input, current }, work, facts), handlerSpan)) as TypedResult;
  };
  if (key === undefined) {
    // A request without a key writes nothing (every write requires one): its unit only reads.
    const read = (db: Queryable) => handle(UnitOfWork.readOnly(db));
    const result = declared.replicaRead && options.replicaReads ? await options.replicaReads.run(read) : await read(options.db);
    const ifNoneMatch = headerValue(call.headers, 'if-none-match');
    if (plan.answersNotModified && result.version !== undefined && noneMatchHits(ifNoneMatch, result.version)) {
      return { status: 304, headers: { ETag: etagOf(result.version) } };
    }
    if (plan.answersNotModified && result.entityTag !== undefined && noneMatchHitsTag(ifNoneMatch, result.entityTag)) {
      return { status: 304, headers: { ETag: strongTagOf(result.entityTag) } };
    }
    return httpResultOf(plan, result, facts);
  }
  const write = { companyId: principal.companyId, key, fingerprint: fingerprintOf(call.method, facts.path, call.input.body) };
  return runIdempotentWrite(options.db, write, options.idempotency, async (unit) => httpResultOf(plan, await handle(unit), facts));
}

/** What a check threw, kept to be thrown later; undefined when it passed. */
async function refusalOf(check: () => Promise<void>): Promise<{ error: unknown } | undefined> {
  try {
    await check();
    return undefined;
  } catch (error) {
    return { error };
  }
}

/** The response of a typed result: the pipeline sets ETag, Service-Effects and Location from its fields. */
function httpResultOf(plan: OperationPlan, result: TypedResult, facts: RequestFacts): HttpResult {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) if (value !== undefined) headers[name] = value;
  if (result.version !== undefined) headers['ETag'] = etagOf(result.version);
  if (result.entityTag !== undefined) headers['ETag'] = strongTagOf(result.entityTag);
  if (result.effects !== undefined) headers['Service-Effects'] = serviceEffectsHeader(result.effects);
  if (result.location !== undefined) headers['Location'] = `${facts.baseUrl}${result.location}`;
  const http: HttpResult = { status: result.status, body: result.body, headers, contentType: plan.textMediaTypes.get(result.status) };
  if (result.revealOnce) http.revealOnce = result.revealOnce;
  return http;
}

/** The Service-Effects header value: a structured-field list of tokens, or `none`. */
export function serviceEffectsHeader(effects: readonly string[]): string {
  return effects.length === 0 ? 'none' : [...new Set(effects)].join(', ');
}
