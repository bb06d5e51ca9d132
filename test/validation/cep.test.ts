import { normaliseCep } from '../../src/validation/cep';

describe('normaliseCep', () => {
  test.each([
    ['01310-100', '01310100'],
    ['01310100', '01310100'],
    ['99999-999', '99999999'],
  ])('accepts %s', (input, expected) => {
    expect(normaliseCep(input)).toEqual({ ok: true, value: expected });
  });

  test.each(['', '0131010', '013101000', '01310 100', '01.310-100', '0131-0100', 'ABCDE-FGH', ' 01310100', '01310100\n'])('refuses %j', (input) => {
    expect(normaliseCep(input)).toEqual({ ok: false, reason: 'must be 8 digits' });
  });
});
