import { invalid, valid, type ValidationResult } from './result';
import { parseDate } from './time-values';

const EARLIEST = '1900-01-01';

/**
 * Accepts a YYYY-MM-DD birth date strictly before `today` (its UTC calendar date) and
 * not before 1900-01-01. `today` is a parameter so tests do not depend on the clock.
 */
export function validateBirthDate(value: string, today: Date = new Date()): ValidationResult {
  if (parseDate(value) === null) return invalid('must be a valid YYYY-MM-DD date');
  // Same-width ISO dates order lexicographically, avoiding time-zone arithmetic.
  const todayIso = today.toISOString().slice(0, 10);
  if (value >= todayIso) return invalid('must be a date in the past');
  if (value < EARLIEST) return invalid(`must not be before ${EARLIEST}`);
  return valid(value);
}
