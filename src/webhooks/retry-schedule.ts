/**
 * When a failed delivery is tried again: the configured delays (WEBHOOK_RETRY_SCHEDULE_MS; by
 * default 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, 8 h, about 24 hours in all), each
 * lengthened to the receiver's `Retry-After` (seconds or an HTTP date), capped at 24 hours.
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

/** A Retry-After header in milliseconds from now, or null when absent or unreadable. */
export function retryAfterMs(header: string | undefined, now = Date.now()): number | null {
  if (!header) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
