/**
 * The one codec of the documents' opaque cursors (the event feed's and the request log's `after`):
 * a fixed number of non-negative integers that fit a PostgreSQL bigint, joined by `.` and written
 * in base64url. A cursor is read back only in the exact form the service wrote (canonical digits,
 * canonical base64url), so a cursor names one position or none: anything else is null, which each
 * reader answers as `400 validation_failed`, never as a database error.
 */

const MAX_BIGINT = 2n ** 63n - 1n;
const PART = /^(?:0|[1-9]\d{0,18})$/;

export function encodeCursor(parts: readonly bigint[]): string {
  return Buffer.from(parts.join('.')).toString('base64url');
}

/** The cursor's `count` parts, or null when `cursor` is not one the service wrote. */
export function decodeCursor(cursor: string, count: number): bigint[] | null {
  if (cursor.length === 0 || cursor.length > 64) return null;
  const decoded = Buffer.from(cursor, 'base64url');
  if (decoded.toString('base64url') !== cursor) return null;
  const texts = decoded.toString('latin1').split('.');
  if (texts.length !== count || !texts.every((text) => PART.test(text))) return null;
  const parts = texts.map((text) => BigInt(text));
  return parts.every((part) => part <= MAX_BIGINT) ? parts : null;
}
