/** The documents' one time parser (src/validation/time-values.ts), value by value. */
import { addDuration, parseDate, parseDateTime, parseDuration } from '../../src/validation/time-values';
import { decodeCursor, encodeCursor } from '../../src/validation/cursor';

describe('format: date', () => {
  test.each(['0001-01-01', '9999-12-31', '2024-02-29', '2000-02-29', '2026-04-30'])('%s is a date', (value) => {
    expect(parseDate(value)).toBe(value);
  });
  test.each([
    '0000-01-01',
    '10000-01-01',
    '+010000-01-01',
    '2026-02-29',
    '1900-02-29',
    '2026-04-31',
    '2026-13-01',
    '2026-00-01',
    '2026-1-1',
    '20260101',
    '',
  ])('%p is not a date', (value) => {
    expect(parseDate(value)).toBeNull();
  });
});

describe('format: date-time', () => {
  test.each([
    ['2026-11-22T10:15:30.123Z', '2026-11-22T10:15:30.123Z'],
    ['2026-11-22t10:15:30z', '2026-11-22T10:15:30.000Z'],
    ['2026-11-22 10:15:30Z', '2026-11-22T10:15:30.000Z'],
    ['2026-11-22T10:15:30.123456789Z', '2026-11-22T10:15:30.123Z'],
    ['2026-11-22T07:15:30-03:00', '2026-11-22T10:15:30.000Z'],
    ['2026-01-01T00:00:00+23:59', '2025-12-31T00:01:00.000Z'],
    ['2026-01-01T00:00:00-00:00', '2026-01-01T00:00:00.000Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
    ['0001-01-01T00:00:00-00:01', '0001-01-01T00:01:00.000Z'],
    ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
    // Leap seconds: the last millisecond of their minute.
    ['2016-12-31T23:59:60Z', '2016-12-31T23:59:59.999Z'],
    ['2016-12-31T23:59:60.5Z', '2016-12-31T23:59:59.999Z'],
    ['2016-12-31T20:59:60-03:00', '2016-12-31T23:59:59.999Z'],
    ['9999-12-31T23:59:60Z', '9999-12-31T23:59:59.999Z'],
  ])('%s is the instant %s', (value, instant) => {
    expect(parseDateTime(value)?.toISOString()).toBe(instant);
  });
  test.each([
    '0000-01-01T00:00:00Z',
    '0001-01-01T00:00:00+00:01',
    '9999-12-31T23:59:59.999-00:01',
    '10000-01-01T00:00:00Z',
    '+010000-01-01T00:00:00Z',
    '2016-12-31T12:00:60Z',
    '2016-12-31T23:58:60Z',
    '2026-02-29T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T00:60:00Z',
    '2026-01-01T00:00:61Z',
    '2026-01-01T00:00:00+24:00',
    '2026-01-01T00:00:00+00:60',
    '2026-01-01T00:00:00+01',
    '2026-01-01T00:00:00+0100',
    '2026-01-01T00:00:00',
    '2026-01-01\t00:00:00Z',
    '2026-01-01T00:00Z',
    '2026-01-01T00:00:00.Z',
    '2026-01-01',
    '',
  ])('%p is not a date-time of the contract', (value) => {
    expect(parseDateTime(value)).toBeNull();
  });
});

describe('format: duration', () => {
  test.each([
    ['P30D', { days: 30 }],
    ['PT1H', { hours: 1 }],
    ['P1Y2M', { years: 1, months: 2 }],
    ['P1W2D', { weeks: 1, days: 2 }],
    ['PT999999999H', { hours: 999_999_999 }],
  ])('%s is a duration', (value, parts) => {
    expect(parseDuration(value)).toEqual({ years: 0, months: 0, weeks: 0, days: 0, hours: 0, minutes: 0, seconds: 0, ...parts });
  });
  test.each(['P', 'PT', 'P1DT', 'P1.5D', '-P1D', 'P-1D', 'p1d', 'P9999999Y', 'PT9999999999H', 'P1S', ''])(
    '%p is not a duration of the contract',
    (value) => {
      expect(parseDuration(value)).toBeNull();
    },
  );
  test('adding months keeps the day where the month has it, and a result past year 9999 is null', () => {
    const from = new Date('2026-01-31T10:00:00.000Z');
    expect(addDuration(from, parseDuration('P1M')!)?.toISOString()).toBe('2026-02-28T10:00:00.000Z');
    expect(addDuration(from, parseDuration('P1Y1DT1S')!)?.toISOString()).toBe('2027-02-01T10:00:01.000Z');
    expect(addDuration(from, parseDuration('P274000Y')!)).toBeNull();
    expect(addDuration(from, parseDuration('P999999M')!)).toBeNull();
    expect(addDuration(from, parseDuration('PT999999999999S')!)).toBeNull();
    expect(addDuration(new Date('9999-12-31T23:59:59.000Z'), parseDuration('PT1S')!)).toBeNull();
  });
});

describe('cursors', () => {
  test('a cursor reads back as the numbers it was made of', () => {
    expect(decodeCursor(encodeCursor([0n, 9_223_372_036_854_775_807n]), 2)).toEqual([0n, 9_223_372_036_854_775_807n]);
  });
  test.each(['9223372036854775808.1', '01.1', '-1.1', '1.1.1', '1', '1e3.1', ' 1.1', '1.'])('a cursor of %p is none of ours', (inside) => {
    expect(decodeCursor(Buffer.from(inside).toString('base64url'), 2)).toBeNull();
  });
  test('a cursor in another spelling of its base64url is none of ours', () => {
    const cursor = encodeCursor([1n, 23n]);
    expect(cursor).toBe('MS4yMw');
    expect(decodeCursor(`${cursor}==`, 2)).toBeNull();
    // The same bytes, with padding bits set in the last character.
    expect(decodeCursor('MS4yMx', 2)).toBeNull();
  });
});
