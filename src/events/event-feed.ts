/**
 * GET /v1/events: the agency's events in a gap-free, duplicate-free order, cursor-paged.
 *
 * Why not simply `ORDER BY position` (a sequence)? Sequence values are taken when a transaction
 * inserts, not when it commits: transaction T may take position 5, U position 6, U commit first,
 * and a reader that returned 6 would never return 5 once T commits behind its cursor.
 *
 * So the feed is ordered by (tx_id, position): `tx_id` is the id of the transaction that wrote the
 * event (pg_current_xact_id(), 64 bits, never wraps) and only events whose transaction is older
 * than the reader's snapshot xmin (`pg_snapshot_xmin(pg_current_snapshot())`, the oldest
 * transaction still running anywhere) are returned. Every such transaction has ended, so what it
 * committed is visible now and nothing else will ever be written with that tx_id; every
 * transaction still running, or started later, has a tx_id >= that xmin, above every cursor
 * handed out. Hence no event can later appear behind a cursor, and none appears twice. The price:
 * an event shows up in the feed only once every transaction that started before it has ended
 * (transactions here last milliseconds; the database ends one idle for 30 s).
 */
import { Prisma } from '../generated/prisma/client';
import type { Queryable } from '../database/prisma-client';
import { readRows } from '../database/direct-reads';
import { ValidationFailed } from '../errors';
import { parseDateTime } from '../validation/time-values';
import { readableTypes } from './event-scopes';
import { parseCursor, toEnvelope, type EventEnvelope, type EventRow } from './event-envelope';

export interface FeedQuery {
  after?: string;
  limit: number;
  /** Bytes of the page's events as JSON at most (the contract's x-max-bytes): the page ends before the event that would go beyond. */
  maxBytes?: number;
  types?: readonly string[];
  occurredFrom?: string;
  occurredBefore?: string;
}

/** The agency's events that `scopes` may read (event-scopes.ts), oldest first after the cursor. */
export async function readFeed(db: Queryable, companyId: string, scopes: readonly string[], query: FeedQuery): Promise<EventEnvelope[]> {
  const cursor = query.after === undefined ? null : parseCursor(query.after);
  if (query.after !== undefined && cursor === null) throw new ValidationFailed(['after: is not a cursor of this feed']);
  const conditions = [
    Prisma.sql`company_id = ${companyId}`,
    Prisma.sql`type = ANY (${readableTypes(scopes)}::text[])`,
    Prisma.sql`tx_id < pg_snapshot_xmin(pg_current_snapshot())::text::bigint`,
  ];
  if (cursor) conditions.push(Prisma.sql`(tx_id, position) > (${cursor.txId}::bigint, ${cursor.position}::bigint)`);
  if (query.types && query.types.length > 0) conditions.push(Prisma.sql`type = ANY (${[...query.types]}::text[])`);
  if (query.occurredFrom) conditions.push(Prisma.sql`occurred_at >= ${filterInstant('occurredFrom', query.occurredFrom)}::timestamptz`);
  if (query.occurredBefore) conditions.push(Prisma.sql`occurred_at < ${filterInstant('occurredBefore', query.occurredBefore)}::timestamptz`);
  // The page is cut by size in the database: only the events that fit ever reach this process.
  const rows = await readRows<EventRow>(
    db,
    Prisma.sql`
    SELECT id, "txId", position, "companyId", type, "occurredAt", data FROM (
      SELECT id::text AS id, tx_id AS "txId", position, company_id AS "companyId", type, occurred_at AS "occurredAt", data,
        sum(octet_length(data::text) + ${ENVELOPE_BYTES + 1}::int) OVER (ORDER BY tx_id, position) AS "upTo",
        row_number() OVER (ORDER BY tx_id, position) AS n
      FROM events WHERE ${Prisma.join(conditions, ' AND ')}
      ORDER BY tx_id, position LIMIT ${query.limit}
    ) page
    WHERE n = 1 OR "upTo" <= ${query.maxBytes ?? Number.MAX_SAFE_INTEGER}::bigint
    ORDER BY "txId", position`,
  );
  return rows.map(toEnvelope);
}

/**
 * Everything of an event's JSON but its `data`, at most: its id, type, time, agency (100
 * characters at 6 bytes), API version, cursor, the names and punctuation around them. A row's
 * `data` is counted by the length of PostgreSQL's text of it, never shorter than JSON.stringify's
 * (it writes the same escapes, and a space after every colon and comma): a page may end a little
 * early, never late. The first event always fits (the contract bounds one to a small part of it).
 */
const ENVELOPE_BYTES = 1000;

/** An occurredFrom/occurredBefore value as an instant, read by the documents' one date-time parser (the validator already checked its format). */
function filterInstant(name: string, text: string): Date {
  const instant = parseDateTime(text);
  if (!instant) throw new ValidationFailed([`${name}: must be an RFC 3339 date-time between the years 0001 and 9999`]);
  return instant;
}
