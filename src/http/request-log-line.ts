/**
 * A line of the agencies' request log (GET /v1/request-log) as the pipeline captures it, once the
 * answer is sent: what the request was
 * (method, path template and the resource it named, operation), how it was answered (status, the
 * error's code and details, Idempotent-Replay), who made it (the principal's credential, the client
 * address) and how long it took. Built from what the pipeline already holds: never a header other
 * than the Idempotency-Key, never the query, a body or a token. Declared here, where the pipeline
 * needs it; the sink that stores the lines (src/request-log/request-log-writer.ts) is injected.
 */
import type { Principal } from '../auth/principal';
import { clientAddress } from '../auth/source-address';
import type { HttpResult } from './http-result';
import { parseIdempotencyKey } from './idempotency';
import { printableAscii } from '../validation/bounded-text';

export interface RequestLogLine {
  companyId: string;
  at: Date;
  method: string;
  path: string;
  resourceId: string | null;
  operationId: string;
  status: number;
  errorCode: string | null;
  errorDetails: string[];
  correlationId: string;
  idempotencyKey: string | null;
  idempotentReplay: boolean | null;
  durationMs: number;
  credentialId: string;
  credentialName: string;
  sourceAddress: string;
}

/** Where the pipeline hands its lines (src/request-log/request-log-writer.ts); absent when REQUEST_LOG=off. */
export interface RequestLogSink {
  record(line: RequestLogLine): void;
}

/** What the pipeline knows of a request that an agency's credential made. */
export interface AnsweredRequest {
  principal: Principal;
  operationId: string;
  /** The operation's path template and the raw values of its path parameters. */
  pathTemplate: string;
  params: Record<string, string>;
  method: string;
  idempotencyKeyHeader: string | undefined;
  correlationId: string;
  address: string | undefined;
  arrivedAt: number;
  durationMs: number;
  result: HttpResult;
}

/** Hands the request's line to the sink; whatever goes wrong stays here (the answer is already sent). */
export function recordAnswered(sink: RequestLogSink, request: AnsweredRequest): void {
  try {
    sink.record(lineOf(request));
  } catch {
    // A line is never worth a failed request.
  }
}

/**
 * What a line keeps, as the contract's RequestLogLine declares it (test/contract/stored-bounds.test.ts
 * checks they agree): a line is at most about 2 KB stored and 5 KB as JSON, whatever a partner sends.
 */
export const LINE_BOUNDS = { details: 5, detailChars: 200, codeChars: 64, resourceIdChars: 100 };
const WRITES = new Set(['POST', 'PATCH', 'DELETE']);

export function lineOf(request: AnsweredRequest): RequestLogLine {
  const { principal, result } = request;
  const error = result.status >= 400 ? errorOf(result.body) : undefined;
  const replay = result.headers?.['Idempotent-Replay'];
  return {
    companyId: principal.companyId,
    at: new Date(request.arrivedAt),
    method: request.method,
    path: request.pathTemplate,
    resourceId: firstParameter(request.pathTemplate, request.params),
    operationId: request.operationId,
    status: result.status,
    errorCode: error?.code ?? null,
    errorDetails: error?.details ?? [],
    correlationId: request.correlationId,
    idempotencyKey: WRITES.has(request.method) ? keyOf(request.idempotencyKeyHeader) : null,
    idempotentReplay: replay === 'true' ? true : replay === 'false' ? false : null,
    durationMs: Math.round(request.durationMs * 10) / 10,
    credentialId: principal.credentialId,
    credentialName: principal.displayName,
    sourceAddress: clientAddress(request.address),
  };
}

/**
 * The value of the path's first parameter (the guarantee's id, the webhook endpoint's id): the
 * resource a partner looks for. Later parameters are left out on purpose: a co-tenant's is a CPF.
 */
function firstParameter(template: string, params: Record<string, string>): string | null {
  const name = /\{([^}]+)\}/.exec(template)?.[1];
  const value = name === undefined ? undefined : params[name];
  return value === undefined ? null : encodedPrefix(value);
}

/**
 * The value as a URI component (`ab%20cd`), cut to its bound without splitting an escape: one byte
 * per character in the database and in JSON. Ids (digits, UUIDs) are unchanged.
 */
function encodedPrefix(value: string): string {
  const encoded = percentEncoded(value.length > LINE_BOUNDS.resourceIdChars ? value.slice(0, LINE_BOUNDS.resourceIdChars + 1) : value);
  if (encoded.length <= LINE_BOUNDS.resourceIdChars) return encoded;
  // Whole characters only: the prefix still decodes.
  let kept = '';
  for (const char of wellFormed(value)) {
    const next = encodeURIComponent(char);
    if (kept.length + next.length > LINE_BOUNDS.resourceIdChars) break;
    kept += next;
  }
  return kept;
}

/** encodeURIComponent, which throws on an unpaired surrogate (a slice may make one): that one as U+FFFD. */
function percentEncoded(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return encodeURIComponent(wellFormed(value));
  }
}

/** An unpaired surrogate (which has no UTF-8 form, and no percent-encoding) as U+FFFD. */
function wellFormed(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

function errorOf(body: unknown): { code: string; details: string[] } | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { code, details } = body as { code?: unknown; details?: unknown };
  if (typeof code !== 'string') return undefined;
  const listed = Array.isArray(details) ? details.filter((detail): detail is string => typeof detail === 'string') : [];
  return {
    code: code.slice(0, LINE_BOUNDS.codeChars),
    details: listed.slice(0, LINE_BOUNDS.details).map((detail) => printableAscii(detail, LINE_BOUNDS.detailChars)),
  };
}

/** The key as the write used it; null when absent or malformed (the write was refused for it). */
function keyOf(header: string | undefined): string | null {
  if (header === undefined) return null;
  try {
    return parseIdempotencyKey(header);
  } catch {
    return null;
  }
}
