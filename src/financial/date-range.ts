/**
 * Calendar days (America/Sao_Paulo) as `YYYY-MM-DD` strings, and the date-range rule of the
 * financial endpoints: both ends inclusive, start not after end, at most 366 days.
 */
import { BadRequest, ValidationFailed } from '../errors';
import { fromDateOnly, toDateOnly } from '../database/column-values';
import { parseDate } from '../validation/time-values';

/** `endDate - startDate` may be at most this many days (a range of 366 calendar days). */
export const MAX_RANGE_DAYS = 365;
const DAY_MS = 86_400_000;

export interface DateRange {
  startDate: string;
  endDate: string;
}

/** A date of the contract (src/validation/time-values.ts: a real day of the years 0001-9999). */
export function isDateOnly(value: string): boolean {
  return parseDate(value) !== null;
}

export function addDays(date: string, days: number): string {
  return toDateOnly(new Date(fromDateOnly(date).getTime() + days * DAY_MS))!;
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((fromDateOnly(to).getTime() - fromDateOnly(from).getTime()) / DAY_MS);
}

/** Checks a requested range: `400 validation_failed` for a malformed date, `400 invalid_date_range` otherwise. */
export function validateDateRange(startDate: string, endDate: string): DateRange {
  const malformed = [
    ...(isDateOnly(startDate) ? [] : ['startDate: must be a date (YYYY-MM-DD)']),
    ...(isDateOnly(endDate) ? [] : ['endDate: must be a date (YYYY-MM-DD)']),
  ];
  if (malformed.length > 0) throw new ValidationFailed(malformed);
  const span = daysBetween(startDate, endDate);
  if (span < 0) {
    throw new BadRequest('invalid_date_range', 'startDate must not be after endDate.', [`startDate: ${startDate} is after endDate ${endDate}`]);
  }
  if (span > MAX_RANGE_DAYS) {
    throw new BadRequest('invalid_date_range', `The date range may span at most ${MAX_RANGE_DAYS + 1} days.`, [
      `endDate: at most ${MAX_RANGE_DAYS} days after startDate (got ${span})`,
    ]);
  }
  return { startDate, endDate };
}
