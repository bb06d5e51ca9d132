/** Pure helpers of the ledger: calendar-day arithmetic, the range rule and exact cents parsing. */
import { addDays, daysBetween, isDateOnly, validateDateRange } from '../../src/financial/date-range';
import { decimalTextToCents } from '../../src/financial/money';
import { signedCents, STATEMENT_TYPES } from '../../src/financial/ledger-rules';
import { ApiError } from '../../src/errors';

const codeOf = (action: () => unknown): string | undefined => {
  try {
    action();
    return undefined;
  } catch (error) {
    return (error as ApiError).code;
  }
};

describe('calendar days', () => {
  test.each([
    ['2025-01-31', 1, '2025-02-01'],
    ['2024-02-28', 1, '2024-02-29'],
    ['2025-02-28', 1, '2025-03-01'],
    ['2025-12-31', 1, '2026-01-01'],
    ['2025-03-01', -1, '2025-02-28'],
    // Brazil has had no daylight saving since 2019, but UTC-day arithmetic never depends on it anyway.
    ['2018-11-03', 1, '2018-11-04'],
  ])('%s + %i day(s) is %s', (date, days, expected) => {
    expect(addDays(date, days)).toBe(expected);
    expect(daysBetween(date, expected)).toBe(days);
  });

  test.each(['2025-02-29', '2025-13-01', '2025-00-10', '2025-1-01', '20250101', '2025-01-01T00:00:00Z', ''])('%p is not a date', (value) => {
    expect(isDateOnly(value)).toBe(false);
  });

  test.each(['2024-02-29', '2025-12-31', '0001-01-01'])('%p is a date', (value) => {
    expect(isDateOnly(value)).toBe(true);
  });
});

describe('the date range rule', () => {
  test('same day, and exactly 366 days (leap year or not), are accepted', () => {
    expect(validateDateRange('2025-01-01', '2025-01-01')).toEqual({ startDate: '2025-01-01', endDate: '2025-01-01' });
    expect(codeOf(() => validateDateRange('2025-01-01', '2026-01-01'))).toBeUndefined();
    expect(codeOf(() => validateDateRange('2024-01-01', '2024-12-31'))).toBeUndefined();
  });

  test('start after end and 367 days are invalid_date_range; malformed dates are validation_failed', () => {
    expect(codeOf(() => validateDateRange('2025-01-02', '2025-01-01'))).toBe('invalid_date_range');
    expect(codeOf(() => validateDateRange('2025-01-01', '2026-01-02'))).toBe('invalid_date_range');
    expect(codeOf(() => validateDateRange('2024-01-01', '2025-01-01'))).toBe('invalid_date_range');
    expect(codeOf(() => validateDateRange('2025-02-30', '2025-03-01'))).toBe('validation_failed');
  });
});

describe('exact cents', () => {
  test.each([
    ['0', 0n],
    ['0.00', 0n],
    ['10.05', 1005n],
    ['-0.07', -7n],
    ['1.5', 150n],
    ['99999999999999.99', 9_999_999_999_999_999n],
  ])('%p is %p cents', (text, cents) => {
    expect(decimalTextToCents(text)).toBe(cents);
  });

  test.each(['1.005', 'abc', '', '1e3'])('%p is refused', (text) => {
    expect(() => decimalTextToCents(text)).toThrow();
  });

  test('the sign follows the type', () => {
    expect(STATEMENT_TYPES.map((type) => signedCents(type, 5n))).toEqual([5n, 5n, 5n, 5n, -5n, -5n, -5n]);
  });
});
