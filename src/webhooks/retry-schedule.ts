/**
 * When a failed delivery is tried again: the configured delays (WEBHOOK_RETRY_SCHEDULE_MS; by
 * default 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, 8 h, about 24 hours in all), each
 * lengthened to the `Retry-After` (seconds or an HTTP date) of a receiver's 429 or 503, capped at
 * 24 hours.
 */
const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

export function parseSchedule(text: string): number[] {
  return text.split(',').map(Number);
}

/** Delay before the attempt after `attemptsMade` failed ones; null when the schedule is spent. */
export function nextDelayMs(schedule: readonly number[], attemptsMade: number, retryAfterMs: number | null): number | null {
  const planned = schedule[attemptsMade - 1];
  if (planned === undefined) return null;
  return Math.max(planned, Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
}

/** A Retry-After header in milliseconds from `now`, or null when absent or neither delay-seconds nor an HTTP date. */
export function retryAfterMs(header: string | undefined, now = Date.now()): number | null {
  if (!header) return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = parseHttpDate(value, now);
  return date === null ? null : Math.max(0, date - now);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = MONTHS.join('|');
const DAY = 'Mon|Tue|Wed|Thu|Fri|Sat|Sun';
const LONG_DAY = 'Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday';
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
const IMF_FIXDATE = new RegExp(`^(?:${DAY}), (\\d{2}) (${MONTH}) (\\d{4}) ${TIME} GMT$`);
const RFC_850 = new RegExp(`^(?:${LONG_DAY}), (\\d{2})-(${MONTH})-(\\d{2}) ${TIME} GMT$`);
const ASCTIME = new RegExp(`^(?:${DAY}) (${MONTH}) ([ \\d]\\d) ${TIME} (\\d{4})$`);

/**
 * An HTTP date (RFC 9110 §5.6.7: IMF-fixdate, or the obsolete RFC 850 and asctime forms that a
 * recipient must accept) in milliseconds since the epoch, or null. Every form is GMT: Date.parse
 * is not used, since it reads the asctime form (which names no zone) in the process's local time
 * zone, and accepts many texts that are no HTTP date.
 */
export function parseHttpDate(text: string, now = Date.now()): number | null {
  let parts: [day: string, month: string, year: string, hour: string, minute: string, second: string] | undefined;
  let match = IMF_FIXDATE.exec(text);
  if (match) parts = [match[1]!, match[2]!, match[3]!, match[4]!, match[5]!, match[6]!];
  else if ((match = RFC_850.exec(text))) parts = [match[1]!, match[2]!, match[3]!, match[4]!, match[5]!, match[6]!];
  else if ((match = ASCTIME.exec(text))) parts = [match[2]!, match[1]!, match[6]!, match[3]!, match[4]!, match[5]!];
  if (!parts) return null;
  const [day, month, hour, minute, second] = [Number(parts[0]), MONTHS.indexOf(parts[1]), Number(parts[3]), Number(parts[4]), Number(parts[5])];
  let year = Number(parts[2]);
  if (parts[2].length === 2) {
    // RFC 850's two-digit year: the most recent year with those digits that is not more than 50 years ahead.
    const thisYear = new Date(now).getUTCFullYear();
    year += Math.floor(thisYear / 100) * 100;
    if (year > thisYear + 50) year -= 100;
  }
  // Date.UTC carries an impossible day (31 Nov) into the next month: such a text is no date. Second 60 is a leap second.
  if (hour > 23 || minute > 59 || second > 60 || new Date(Date.UTC(year, month, day)).getUTCDate() !== day) return null;
  return Date.UTC(year, month, day, hour, minute, second);
}
