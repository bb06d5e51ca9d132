/**
 * The `by` of a sandbox time travel: an ISO 8601 duration of whole numbers, `PnYnMnWnDTnHnMnS`
 * (any part may be left out, at least one given). Years and months are calendar months added in
 * UTC (31 January plus P1M is the last day of February); weeks, days, hours, minutes and seconds
 * are fixed lengths (a day is 24 hours).
 */
const DURATION = /^P(?:(\d{1,6})Y)?(?:(\d{1,6})M)?(?:(\d{1,6})W)?(?:(\d{1,6})D)?(?:T(?:(\d{1,9})H)?(?:(\d{1,9})M)?(?:(\d{1,12})S)?)?$/;

/** `from` plus `duration`, or null when `duration` is not one this parser reads. */
export function addDuration(from: Date, duration: string): Date | null {
  const match = DURATION.exec(duration);
  if (!match || duration.endsWith('T') || match.slice(1).every((part) => part === undefined)) return null;
  const [years, months, weeks, days, hours, minutes, seconds] = match.slice(1).map((part) => Number(part ?? 0)) as number[];
  const moved = addMonths(from, years! * 12 + months!);
  const fixedMs = (((weeks! * 7 + days!) * 24 + hours!) * 60 + minutes!) * 60_000 + seconds! * 1000;
  return new Date(moved.getTime() + fixedMs);
}

function addMonths(from: Date, months: number): Date {
  if (months === 0) return from;
  const target = new Date(from.getTime());
  const day = target.getUTCDate();
  target.setUTCDate(1);
  target.setUTCMonth(target.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(day, lastDay));
  return target;
}
