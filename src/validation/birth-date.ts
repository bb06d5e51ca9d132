import { invalid, valid, type ValidationResult } from './result';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const EARLIEST = '1900-01-01';

// The format is checked upstream, but a lexicographic comparison is only meaningful for
// real calendar dates, so impossible ones (2023-02-29) are still refused here.
function isCalendarDate(value: string): boolean {
  const match = DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0-99 to 1900-1999.
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/**
 * Accepts a YYYY-MM-DD birth date strictly before `today` (its UTC calendar date) and
 * not before 1900-01-01. `today` is a parameter so tests do not depend on the clock.
 */
export function validateBirthDate(value: string, today: Date = new Date()): ValidationResult {
  if (!isCalendarDate(value)) return invalid('must be a valid YYYY-MM-DD date');
  // Same-width ISO dates order lexicographically, avoiding time-zone arithmetic.
  const todayIso = today.toISOString().slice(0, 10);
  if (value >= todayIso) return invalid('must be a date in the past');
  if (value < EARLIEST) return invalid(`must not be before ${EARLIEST}`);
  return valid(value);
}
