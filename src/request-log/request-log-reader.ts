/**
 * Reading the request log: an agency's lines (or, for the operations API, any agency's), newest
 * first by arrival time, cursor-paged like the event feed (an opaque base64url cursor of the last
 * line's time and id), with the contract's filters. Lines are bounded per agency and by 7 days, so
 * a filter scans at most that many index entries of one agency.
 */
import { Prisma } from '../generated/prisma/client';
import type { Queryable } from '../database/prisma-client';
import { ValidationFailed } from '../errors';
import { decodeCursor, encodeCursor } from '../validation/cursor';
import { instantOf } from '../validation/time-values';
import type { components } from '../generated/partner-api';

/** How long lines are kept (documented in partner.yaml). */
export const REQUEST_LOG_RETENTION_DAYS = 7;

export interface RequestLogQuery {
  after?: string;
  limit: number;
  statusClass?: readonly string[];
  operationId?: string;
  credentialId?: string;
  idempotencyKey?: string;
  correlationId?: string;
  /** Issue 37 (the director's view): lines that arrived at or after `from`, and before `to`. */
  from?: Date;
  to?: Date;
}

/** A line as both APIs answer it: the contract's RequestLogLine (the back office's is the same shape). */
export type RequestLogView = components['schemas']['RequestLogLine'];

export async function readRequestLog(db: Queryable, companyId: string, query: RequestLogQuery, now = new Date()): Promise<RequestLogView[]> {
  const cursor = query.after === undefined ? null : parseCursor(query.after);
  if (query.after !== undefined && cursor === null) throw new ValidationFailed(['after: is not a cursor of this request log']);
  const where: Prisma.RequestLogLineWhereInput[] = [
    { companyId },
    // Lines past the retention are not shown even before the pruning removed them.
    { at: { gte: new Date(now.getTime() - REQUEST_LOG_RETENTION_DAYS * 86_400_000) } },
  ];
  // `at <= cursor` bounds the index range; the OR keeps only the lines after the cursor within its millisecond.
  if (cursor) where.push({ at: { lte: cursor.at } }, { OR: [{ at: { lt: cursor.at } }, { id: { lt: cursor.id } }] });
  if (query.statusClass && query.statusClass.length > 0) {
    where.push({ OR: [...new Set(query.statusClass)].map((statusClass) => statusRange(statusClass)) });
  }
  if (query.operationId !== undefined) where.push({ operationId: query.operationId });
  if (query.credentialId !== undefined) where.push({ credentialId: query.credentialId });
  if (query.idempotencyKey !== undefined) where.push({ idempotencyKey: query.idempotencyKey });
  if (query.correlationId !== undefined) where.push({ correlationId: query.correlationId });
  if (query.from !== undefined) where.push({ at: { gte: query.from } });
  if (query.to !== undefined) where.push({ at: { lt: query.to } });
  const rows = await db.requestLogLine.findMany({ where: { AND: where }, orderBy: [{ at: 'desc' }, { id: 'desc' }], take: query.limit });
  return rows.map(toView);
}

function statusRange(statusClass: string): Prisma.RequestLogLineWhereInput {
  const hundreds = Number(statusClass[0]) * 100;
  return { status: { gte: hundreds, lt: hundreds + 100 } };
}

type Row = Awaited<ReturnType<Queryable['requestLogLine']['findFirstOrThrow']>>;

function toView(row: Row): RequestLogView {
  return {
    cursor: cursorOf(row.at, row.id),
    at: row.at.toISOString(),
    method: row.method as RequestLogView['method'],
    path: row.path,
    resourceId: row.resourceId,
    operationId: row.operationId,
    status: row.status,
    error: row.errorCode === null ? null : { code: row.errorCode, details: row.errorDetails },
    correlationId: row.correlationId,
    idempotencyKey: row.idempotencyKey,
    idempotentReplay: row.idempotentReplay,
    // A REAL column reads back as a double: 2.3 comes back as 2.299999952316284.
    durationMs: Math.round(row.durationMs * 10) / 10,
    credential: { id: row.credentialId, name: row.credentialName },
    sourceAddress: row.sourceAddress,
  };
}

/** The opaque cursor: the line's arrival time (ms since the epoch) and id (src/validation/cursor.ts). */
export function cursorOf(at: Date, id: bigint): string {
  return encodeCursor([BigInt(at.getTime()), id]);
}

/** The cursor's parts, or null when it is not one of ours (a time outside the years 0001-9999 included). */
export function parseCursor(cursor: string): { at: Date; id: bigint } | null {
  const parts = decodeCursor(cursor, 2);
  const at = parts ? instantOf(Number(parts[0])) : null;
  return parts && at ? { at, id: parts[1]! } : null;
}
