/**
 * The middle value of the bench's repeated runs; with an even count (the bench's pairs usually are),
 * the mean of the two middle ones, since taking the upper one flatters whichever side it favours.
 * NaN when there is no value (a variant that measured nothing shows as NaN, not as a figure).
 */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
