/**
 * Values of the documents' time formats and cursors for property-based tests: the boundaries
 * (years 0000, 0001, 9999 and 10000, leap days and leap seconds, the widest offsets, fractions,
 * separators, overflowing durations, cursors past year 9999 or 2^63) and random values built
 * part by part around the valid ranges, so that most are near a boundary and some are valid.
 */
import fc from 'fast-check';
import type { TimeKind } from './time-inputs';

const pad = (value: number, width: number) => String(value).padStart(width, '0');
const base64url = (text: string) => Buffer.from(text).toString('base64url');

export const BOUNDARIES: Record<TimeKind, string[]> = {
  date: [
    '0000-01-01',
    '0001-01-01',
    '9999-12-31',
    '10000-01-01',
    '+010000-01-01',
    '-000001-01-01',
    '2024-02-29',
    '2026-02-29',
    '1900-02-29',
    '2000-02-29',
    '2026-13-01',
    '2026-00-10',
    '2026-04-31',
    '2026-1-1',
    '2026-01-01T00:00:00Z',
    '20260101',
    '',
  ],
  'date-time': [
    '0000-01-01T00:00:00Z',
    '0001-01-01T00:00:00Z',
    '0001-01-01T00:00:00+00:01',
    '0001-01-01T00:00:00-00:01',
    '9999-12-31T23:59:59.999Z',
    '9999-12-31T23:59:59.999-00:01',
    '9999-12-31T23:59:59.9999999999Z',
    '9999-12-31T23:59:60Z',
    '10000-01-01T00:00:00Z',
    '+010000-01-01T00:00:00Z',
    '2016-12-31T23:59:60Z',
    '2016-12-31T23:59:60.5Z',
    '2016-12-31T20:59:60-03:00',
    '2016-12-31T12:00:60Z',
    '2026-02-29T00:00:00Z',
    '2024-02-29T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T00:60:00Z',
    '2026-01-01T00:00:00+24:00',
    '2026-01-01T00:00:00+23:59',
    '2026-01-01T00:00:00-23:59',
    '2026-01-01T00:00:00+01',
    '2026-01-01T00:00:00+0100',
    '2026-01-01T00:00:00',
    '2026-01-01 00:00:00Z',
    '2026-01-01t00:00:00z',
    '2026-01-01T00:00:00.123456789Z',
    '2026-01-01T00:00Z',
    '2026-01-01',
    '',
  ],
  duration: [
    'P274000Y',
    'P999999Y',
    'P9999999Y',
    'P999999M',
    'P999999W',
    'P999999D',
    'PT999999999H',
    'PT999999999999S',
    'P1830D',
    'P1831D',
    'P5Y',
    'P6Y',
    'PT1S',
    'P1M',
    'P1W2D',
    'P',
    'PT',
    'P1DT',
    'P-1D',
    'P1.5D',
    'p1d',
    '',
  ],
  cursor: [
    base64url('0.0'),
    base64url('1.1'),
    base64url('9223372036854775807.9223372036854775807'),
    base64url('9223372036854775808.1'),
    base64url('1.9223372036854775808'),
    base64url(`${Date.UTC(9999, 11, 31, 23, 59, 59, 999)}.1`),
    base64url(`${Date.UTC(9999, 11, 31, 23, 59, 59, 999) + 1}.1`),
    base64url('8640000000000000.1'),
    base64url('8640000000000001.1'),
    base64url('-1.1'),
    base64url('01.1'),
    base64url('1.1.1'),
    base64url('1'),
    base64url('1e3.1'),
    base64url(' 1.1'),
    `${base64url('1.1')}=`,
    'AAAA',
    '_-_-',
    'a',
    'x'.repeat(64),
  ],
};

const yearOf = fc.oneof(fc.integer({ min: 0, max: 10 }), fc.integer({ min: 1900, max: 2200 }), fc.integer({ min: 9990, max: 10_001 }));
const dateOf = fc
  .tuple(yearOf, fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }))
  .map(([year, month, day]) => `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`);
const offsetOf = fc.oneof(
  fc.constantFrom('Z', 'z', '+00:00', '-00:00'),
  fc
    .tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 25 }), fc.integer({ min: 0, max: 60 }))
    .map(([sign, hours, minutes]) => `${sign}${pad(hours, 2)}:${pad(minutes, 2)}`),
);
const dateTimeOf = fc
  .tuple(
    dateOf,
    fc.constantFrom('T', 't', ' '),
    fc.integer({ min: 0, max: 24 }),
    fc.integer({ min: 0, max: 60 }),
    fc.integer({ min: 0, max: 61 }),
    fc.option(fc.stringMatching(/^\d{1,12}$/), { nil: undefined }),
    offsetOf,
  )
  .map(
    ([date, separator, hour, minute, second, fraction, offset]) =>
      `${date}${separator}${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}${fraction === undefined ? '' : `.${fraction}`}${offset}`,
  );
const part = (unit: string) =>
  fc.option(
    fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 9_999_999 })).map((value) => `${value}${unit}`),
    { nil: '' },
  );
const durationOf = fc
  .tuple(part('Y'), part('M'), part('W'), part('D'), fc.boolean(), part('H'), part('M'), part('S'))
  .map(
    ([years, months, weeks, days, timed, hours, minutes, seconds]) =>
      `P${years}${months}${weeks}${days}${timed ? `T${hours}${minutes}${seconds}` : ''}`,
  );
const bigNumber = fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 64n }), fc.bigInt({ min: 0n, max: 300_000_000_000_000n }), fc.constant(-1n));
const cursorOf = fc.oneof(
  fc.tuple(bigNumber, bigNumber).map(([first, second]) => base64url(`${first}.${second}`)),
  fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/),
);

/** Random values of each kind; junk strings among them. */
export const RANDOM: Record<TimeKind, fc.Arbitrary<string>> = {
  date: fc.oneof({ weight: 6, arbitrary: dateOf }, { weight: 1, arbitrary: fc.string({ maxLength: 12 }) }),
  'date-time': fc.oneof({ weight: 6, arbitrary: dateTimeOf }, { weight: 1, arbitrary: fc.string({ maxLength: 30 }) }),
  duration: fc.oneof({ weight: 6, arbitrary: durationOf }, { weight: 1, arbitrary: fc.string({ maxLength: 12 }) }),
  cursor: fc.oneof({ weight: 4, arbitrary: cursorOf }, { weight: 1, arbitrary: fc.string({ maxLength: 20 }) }),
};
