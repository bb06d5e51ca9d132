import { normaliseCpfCnpj } from '../../src/validation/cpf-cnpj';

describe('normaliseCpfCnpj', () => {
  test.each([
    ['formatted CPF', '529.982.247-25', '52998224725'],
    ['bare CPF', '52998224725', '52998224725'],
    ['CPF with first check digit 0', '111.444.777-35', '11144477735'],
    ['CPF partially punctuated', '529982247-25', '52998224725'],
    ['formatted numeric CNPJ', '11.222.333/0001-81', '11222333000181'],
    ['bare numeric CNPJ', '11222333000181', '11222333000181'],
    ['Receita Federal alphanumeric example', '12.ABC.345/01DE-35', '12ABC34501DE35'],
    ['bare alphanumeric CNPJ', '12ABC34501DE35', '12ABC34501DE35'],
    ['lower-case alphanumeric CNPJ is upper-cased', '12.abc.345/01de-35', '12ABC34501DE35'],
    ['all-letter base', 'ABCDEFGHIJKL80', 'ABCDEFGHIJKL80'],
    ['mixed base', 'A1.B2C.3D4/E5F6-68', 'A1B2C3D4E5F668'],
    ['late-alphabet letters', 'Z9Y8X7W6V5U429', 'Z9Y8X7W6V5U429'],
  ])('accepts %s', (_label, input, expected) => {
    expect(normaliseCpfCnpj(input)).toEqual({ ok: true, value: expected });
  });

  test.each([
    ['CPF wrong first check digit', '529.982.247-35', 'invalid check digits'],
    ['CPF wrong second check digit', '52998224726', 'invalid check digits'],
    ['CPF repeated digits (passes mod 11)', '111.111.111-11', 'must not be a single repeated digit'],
    ['CPF all zeros', '00000000000', 'must not be a single repeated digit'],
    ['CPF containing a letter', '5299822472A', 'must contain only digits in a CPF'],
    ['numeric CNPJ wrong check digits', '11.222.333/0001-82', 'invalid check digits'],
    ['alphanumeric CNPJ wrong check digits', '12.ABC.345/01DE-36', 'invalid check digits'],
    ['alphanumeric CNPJ with a swapped letter', '12ABD34501DE35', 'invalid check digits'],
    ['alphanumeric CNPJ with letter check digits', '12ABC34501DEAB', 'must end with 2 numeric check digits in a CNPJ'],
    ['CNPJ all zeros (passes mod 11)', '00.000.000/0000-00', 'must not be a single repeated character'],
    ['too short', '5299822472', 'must have 11 (CPF) or 14 (CNPJ) characters'],
    ['12 characters', '529982247250', 'must have 11 (CPF) or 14 (CNPJ) characters'],
    ['too long', '112223330001810', 'must have 11 (CPF) or 14 (CNPJ) characters'],
    ['empty', '', 'must have 11 (CPF) or 14 (CNPJ) characters'],
    ['only punctuation', '...-/', 'must have 11 (CPF) or 14 (CNPJ) characters'],
    ['spaces', '529 982 247 25', 'must contain only digits, letters, ".", "-" and "/"'],
    ['other symbols', '12*ABC*345/01DE-35', 'must contain only digits, letters, ".", "-" and "/"'],
    ['non-ASCII letter', '12ÁBC34501DE35', 'must contain only digits, letters, ".", "-" and "/"'],
  ])('refuses %s', (_label, input, reason) => {
    expect(normaliseCpfCnpj(input)).toEqual({ ok: false, reason });
  });
});
