/**
 * Exact money arithmetic of the ledger: amounts are integer cents (bigint) from the database's
 * NUMERIC text to the response, and become JSON numbers only in the mappers.
 */
export { centsToDecimalString, centsToNumber, MAX_ABS_CENTS } from '../validation/money';

const DECIMAL_TEXT = /^(-?)(\d+)(?:\.(\d{1,2}))?$/;

/** NUMERIC text with at most 2 decimals (as PostgreSQL prints `numeric(…,2)::text`) to cents. */
export function decimalTextToCents(text: string): bigint {
  const match = DECIMAL_TEXT.exec(text.trim());
  if (!match) throw new Error(`Not a 2-decimal amount: ${JSON.stringify(text)}`);
  const [, sign, whole, fraction = ''] = match;
  const cents = BigInt(whole!) * 100n + BigInt(fraction.padEnd(2, '0'));
  return sign === '-' ? -cents : cents;
}
