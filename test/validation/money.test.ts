import { MAX_ABS_CENTS, centsToDecimalString, centsToNumber, toCents } from '../../src/validation/money';

// JSON.parse stands in for the request body parser: it yields the double a client's
// 2-decimal text becomes, which is what toCents actually receives.
const fromJson = (text: string): number => JSON.parse(text) as number;

describe('toCents', () => {
  test.each([
    [19.99, 1999n],
    [0.07, 7n],
    [0.1, 10n],
    [0.3, 30n],
    [1.1, 110n],
    [100, 10000n],
    [0, 0n],
    [-0, 0n],
    [-0.07, -7n],
    [-19.99, -1999n],
    [1.0, 100n],
    [999999999.99, 99999999999n],
    [999999999999.99, 99999999999999n],
    [1e11, 10000000000000n],
  ])('converts %p exactly', (n, expected) => {
    expect(toCents(n)).toBe(expected);
  });

  test.each([
    ['3 decimals', 1.005],
    ['3 decimals below one cent', 0.001],
    ['3 decimals, negative', -19.999],
    ['many decimals', 0.123456],
    ['exponent form, tiny', 1e-7],
    ['exponent form, tiny with mantissa', 1.5e-7],
    ['arithmetic noise', 0.1 + 0.2],
    ['large with a third decimal', fromJson('999999999.995')],
    ['largest accepted with a third decimal', fromJson('999999999999.985')],
    ['1e21', 1e21],
    ['above the accepted range', 1_000_000_000_000],
    ['above the accepted range, negative', -1_000_000_000_000],
    ['NaN', NaN],
    ['Infinity', Infinity],
    ['-Infinity', -Infinity],
  ])('refuses %s', (_label, n) => {
    expect(toCents(n)).toBeNull();
  });

  test('converts every cent value from 0.00 to 20.00 (and its negative) exactly', () => {
    for (let c = 0n; c <= 2000n; c++) {
      const text = centsToDecimalString(c);
      expect(toCents(fromJson(text))).toBe(c);
      expect(toCents(fromJson(`-${text}`))).toBe(-c);
    }
  });

  test('refuses every 3-decimal value with a non-zero third decimal from 0.000 to 2.000', () => {
    for (let m = 0; m <= 2000; m++) {
      const text = `${Math.floor(m / 1000)}.${String(m % 1000).padStart(3, '0')}`;
      const expected = m % 10 === 0 ? BigInt(m / 10) : null;
      expect(toCents(fromJson(text))).toBe(expected);
    }
  });

  test('converts a sample of large 2-decimal values exactly and refuses their 3-decimal neighbours', () => {
    // Deterministic LCG so failures reproduce.
    let seed = 12345n;
    const next = (): bigint => (seed = (seed * 6364136223846793005n + 1442695040888963407n) % 2n ** 64n);
    const samples = [MAX_ABS_CENTS, MAX_ABS_CENTS - 1n, 99999999999n, 99999999998n, 4503599627370n];
    for (let i = 0; i < 2000; i++) samples.push(next() % (MAX_ABS_CENTS + 1n));
    for (const c of samples) {
      const text = centsToDecimalString(c);
      expect(toCents(fromJson(text))).toBe(c);
      expect(toCents(fromJson(`${text}5`))).toBeNull();
      expect(toCents(fromJson(`${text}1`))).toBeNull();
      expect(toCents(fromJson(`${text}9`))).toBeNull();
    }
  });
});

describe('centsToDecimalString', () => {
  test.each([
    [1999n, '19.99'],
    [-7n, '-0.07'],
    [10000n, '100.00'],
    [0n, '0.00'],
    [5n, '0.05'],
    [-100n, '-1.00'],
    [99999999999999n, '999999999999.99'],
  ])('formats %p as %s', (c, expected) => {
    expect(centsToDecimalString(c)).toBe(expected);
  });
});

describe('centsToNumber', () => {
  test.each([
    [1999n, 19.99],
    [-7n, -0.07],
    [10000n, 100],
    [0n, 0],
    [99999999999n, 999999999.99],
  ])('converts %p to %p', (c, expected) => {
    expect(centsToNumber(c)).toBe(expected);
  });

  test('round-trips through toCents', () => {
    for (let c = -2000n; c <= 2000n; c++) expect(toCents(centsToNumber(c))).toBe(c);
  });
});
