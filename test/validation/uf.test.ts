import { UF_CODES, validateUf } from '../../src/validation/uf';

describe('validateUf', () => {
  test('lists the 27 federative units once each', () => {
    expect(new Set(UF_CODES).size).toBe(27);
  });

  test.each([...UF_CODES])('accepts %s', (uf) => {
    expect(validateUf(uf)).toEqual({ ok: true, value: uf });
  });

  test.each(['sp', 'Sp', 'XX', 'S', 'SPP', ' SP', '', 'BR'])('refuses %j', (input) => {
    expect(validateUf(input)).toEqual({ ok: false, reason: 'must be a Brazilian UF code' });
  });
});
