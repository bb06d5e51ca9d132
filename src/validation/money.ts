/**
 * Money crosses the API as JSON numbers with at most 2 decimals and is stored as integer
 * cents. Conversion goes through the number's shortest round-trip decimal representation
 * (`Number.prototype.toString`), which for JSON input is the decimal the client wrote
 * whenever it has <= 15 significant digits; multiplying by 100 instead would turn 1.005
 * into 100.49999999999999 and 0.07 into 7.000000000000001.
 */

/**
 * Largest magnitude accepted, in cents (999,999,999,999.99). Below 2^43 the spacing
 * between doubles is under 0.001, so a third decimal always survives JSON parsing and can
 * be refused; above it 1234567890123.455 might arrive looking like a 2-decimal amount.
 */
export const MAX_ABS_CENTS = 99_999_999_999_999n;

const NUMBER_TEXT = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/;

/** Exact conversion to cents, or null if `n` is not finite, has a non-zero third decimal or is out of range. */
export function toCents(n: number): bigint | null {
  if (!Number.isFinite(n)) return null;
  const match = NUMBER_TEXT.exec(n.toString());
  if (!match) return null;
  const [, sign, intPart, fracPart = '', exponent = '0'] = match;

  // Shift the decimal point by the exponent so "1e-7" and "1.5e+21" are handled like
  // their positional forms.
  const digits = intPart + fracPart;
  const point = intPart.length + Number(exponent);
  const padded = point <= 0 ? '0'.repeat(1 - point) + digits : digits.padEnd(point, '0');
  const pointIndex = Math.max(point, 1);
  const whole = padded.slice(0, pointIndex);
  const fraction = padded.slice(pointIndex);

  if (/[^0]/.test(fraction.slice(2))) return null;
  const cents = BigInt(whole + fraction.slice(0, 2).padEnd(2, '0'));
  if (cents > MAX_ABS_CENTS) return null;
  // -0 and "-0.00" collapse to 0n, so the sign only matters for non-zero amounts.
  return sign === '-' ? -cents : cents;
}

/** Fixed 2-decimal text, e.g. 1999n -> "19.99", -7n -> "-0.07", 10000n -> "100.00". */
export function centsToDecimalString(c: bigint): string {
  const negative = c < 0n;
  const abs = (negative ? -c : c).toString().padStart(3, '0');
  return `${negative ? '-' : ''}${abs.slice(0, -2)}.${abs.slice(-2)}`;
}

/**
 * The JSON number for a cents amount. Parsing the decimal text yields the double nearest
 * to the exact amount, i.e. the same value a client's JSON parser produces for it.
 */
export function centsToNumber(c: bigint): number {
  return Number(centsToDecimalString(c));
}
