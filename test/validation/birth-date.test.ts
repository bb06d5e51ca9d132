import { validateBirthDate } from '../../src/validation/birth-date';

// Late in the UTC day, so a local-time implementation would disagree in UTC-3.
const TODAY = new Date('2026-03-15T23:30:00Z');

describe('validateBirthDate', () => {
  test.each(['2026-03-14', '1990-07-01', '1900-01-01', '2000-02-29', '2025-12-31'])('accepts %s', (value) => {
    expect(validateBirthDate(value, TODAY)).toEqual({ ok: true, value });
  });

  test.each([
    ['today', '2026-03-15', 'must be a date in the past'],
    ['tomorrow', '2026-03-16', 'must be a date in the past'],
    ['next year', '2027-01-01', 'must be a date in the past'],
    ['1899', '1899-12-31', 'must not be before 1900-01-01'],
    ['year 0001', '0001-01-01', 'must not be before 1900-01-01'],
    ['non-leap 29 February', '2023-02-29', 'must be a valid YYYY-MM-DD date'],
    ['month 13', '1990-13-01', 'must be a valid YYYY-MM-DD date'],
    ['day 0', '1990-01-00', 'must be a valid YYYY-MM-DD date'],
    ['not ISO', '15/03/1990', 'must be a valid YYYY-MM-DD date'],
  ])('refuses %s', (_label, value, reason) => {
    expect(validateBirthDate(value, TODAY)).toEqual({ ok: false, reason });
  });

  test('defaults to the current UTC date', () => {
    const todayIso = new Date().toISOString().slice(0, 10);
    expect(validateBirthDate(todayIso).ok).toBe(false);
    expect(validateBirthDate('1990-01-01').ok).toBe(true);
  });
});
