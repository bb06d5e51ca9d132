/**
 * The one reader of the documents' time values (issue 34 item 3): `format: date`, `format: date-time`
 * and `format: duration`. The request validator (src/http/ajv.ts) checks these formats with these
 * functions, and every operation converts the values it was given with them too, so a value the
 * contract accepts is always one the service can compute with, store and answer (issue 23 list 7,
 * issue 34 finding 4: `0000-01-01T00:00:00Z`, a leap second and a time past year 9999 once
 * reached `new Date` or PostgreSQL and answered 500).
 *
 *   date       `YYYY-MM-DD`, a real calendar day of the years 0001 to 9999.
 *   date-time  RFC 3339 (§5.6): `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`; `t`, `z` and a single
 *              space instead of `T` are accepted (its §5.6 note); the instant, once the offset is
 *              applied, lies in 0001-01-01T00:00:00.000Z .. 9999-12-31T23:59:59.999Z. A fraction
 *              beyond milliseconds is cut. A leap second (`:60`, only at 23:59 UTC, as RFC 3339
 *              allows it) is normalised to the last millisecond of its minute (`23:59:59.999Z`):
 *              JavaScript and PostgreSQL have no leap seconds.
 *   duration   ISO 8601 `PnYnMnWnDTnHnMnS` in whole numbers, each part optional, at least one
 *              given (and one after `T` when `T` is); at most 6 digits for years, months, weeks and
 *              days, 9 for hours and minutes, 12 for seconds.
 */

/** The first and last instants the documents' formats allow (and JavaScript and PostgreSQL both hold). */
export const EARLIEST_INSTANT = utcMillis(1, 1, 1);
export const LATEST_INSTANT = utcMillis(9999, 12, 31) + 86_400_000 - 1;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;
const DURATION = /^P(?:(\d{1,6})Y)?(?:(\d{1,6})M)?(?:(\d{1,6})W)?(?:(\d{1,6})D)?(?:T(?:(\d{1,9})H)?(?:(\d{1,9})M)?(?:(\d{1,12})S)?)?$/;

/** `text` when it is a date of the contract (`YYYY-MM-DD`, a real day of 0001-9999), else null. */
export function parseDate(text: string): string | null {
  const match = DATE.exec(text);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return year >= 1 && isCalendarDay(year, month, day) ? text : null;
}

/** The instant of an RFC 3339 date-time of the contract, or null (see the header for the rules). */
export function parseDateTime(text: string): Date | null {
  const match = DATE_TIME.exec(text);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const [fraction, sign, offsetHours, offsetMinutes] = [match[7], match[8], Number(match[9] ?? 0), Number(match[10] ?? 0)];
  if (year < 1 || !isCalendarDay(year, month, day) || hour > 23 || minute > 59 || second > 60 || offsetHours > 23 || offsetMinutes > 59) return null;
  const offsetMs = (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  const minuteStart = utcMillis(year, month, day) + (hour * 60 + minute) * 60_000 - offsetMs;
  let instant: number;
  if (second === 60) {
    // A leap second is inserted after 23:59:59 UTC only.
    if (new Date(minuteStart).getUTCHours() !== 23 || new Date(minuteStart).getUTCMinutes() !== 59) return null;
    instant = minuteStart + 59_999;
  } else {
    instant = minuteStart + second * 1000 + Number(((fraction ?? '') + '000').slice(0, 3));
  }
  return instant >= EARLIEST_INSTANT && instant <= LATEST_INSTANT ? new Date(instant) : null;
}

/** An instant (milliseconds since the epoch) the formats allow, as a Date; null outside 0001-9999 or not a number. */
export function instantOf(milliseconds: number): Date | null {
  return Number.isFinite(milliseconds) && milliseconds >= EARLIEST_INSTANT && milliseconds <= LATEST_INSTANT ? new Date(milliseconds) : null;
}

export interface Duration {
  years: number;
  months: number;
  weeks: number;
  days: number;
  hours: number;
  minutes: number;
  seconds: number;
}

/** The parts of an ISO 8601 duration of whole numbers, or null. */
export function parseDuration(text: string): Duration | null {
  const match = DURATION.exec(text);
  if (!match || text.endsWith('T') || match.slice(1).every((part) => part === undefined)) return null;
  const [years, months, weeks, days, hours, minutes, seconds] = match.slice(1).map((part) => Number(part ?? 0)) as number[];
  return { years: years!, months: months!, weeks: weeks!, days: days!, hours: hours!, minutes: minutes!, seconds: seconds! };
}

/**
 * `from` plus `duration`: years and months are calendar months added in UTC (31 January plus P1M
 * is the last day of February), the other parts fixed lengths (a day is 24 hours). Null when the
 * result is past 9999-12-31T23:59:59.999Z.
 */
export function addDuration(from: Date, duration: Duration): Date | null {
  const months = duration.years * 12 + duration.months;
  // Beyond the last year no month arithmetic is needed to know the answer (and Date would overflow).
  if (months > 12 * 10_000) return null;
  const moved = months === 0 ? from.getTime() : addMonths(from, months);
  const fixedMs = (((duration.weeks * 7 + duration.days) * 24 + duration.hours) * 60 + duration.minutes) * 60_000 + duration.seconds * 1000;
  return instantOf(moved + fixedMs);
}

function addMonths(from: Date, months: number): number {
  const target = new Date(from.getTime());
  const day = target.getUTCDate();
  target.setUTCDate(1);
  target.setUTCMonth(target.getUTCMonth() + months);
  target.setUTCDate(Math.min(day, daysInMonth(target.getUTCFullYear(), target.getUTCMonth() + 1)));
  return target.getTime();
}

function isCalendarDay(year: number, month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Midnight UTC of a day; unlike Date.UTC, years 0-99 are not taken for 1900-1999. */
function utcMillis(year: number, month: number, day: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getTime();
}
