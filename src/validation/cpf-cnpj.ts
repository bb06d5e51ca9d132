import { invalid, valid, type ValidationResult } from './result';

// Only the punctuation of the official masks (000.000.000-00, 00.000.000/0000-00) is
// tolerated; anything else (spaces, commas, other symbols) more likely signals a wrong
// value than formatting. Positions are not checked: the mask carries no information.
const ALLOWED = /^[0-9A-Za-z./-]*$/;
const PUNCTUATION = /[./-]/g;

const CPF_WEIGHTS_1 = [10, 9, 8, 7, 6, 5, 4, 3, 2];
const CPF_WEIGHTS_2 = [11, 10, 9, 8, 7, 6, 5, 4, 3, 2];
const CNPJ_WEIGHTS_1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
const CNPJ_WEIGHTS_2 = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];

// The alphanumeric CNPJ (in force since July 2026) defines a character's value as its
// ASCII code minus 48, which keeps '0'..'9' -> 0..9 so numeric CNPJs compute as before.
const charValue = (ch: string): number => ch.charCodeAt(0) - 48;

function mod11Digit(body: string, weights: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < weights.length; i++) sum += charValue(body[i]) * weights[i];
  const remainder = sum % 11;
  return remainder < 2 ? 0 : 11 - remainder;
}

function checkDigits(base: string, weights1: readonly number[], weights2: readonly number[]): string {
  const first = mod11Digit(base, weights1);
  const second = mod11Digit(base + String(first), weights2);
  return `${first}${second}`;
}

// Sequences such as 00000000000 or 11111111111 satisfy the mod-11 check but are
// never issued, and are the usual placeholder typed to get past a form.
const isRepeated = (s: string): boolean => /^(.)\1*$/.test(s);

/** The CPF whose first 9 digits are `base` (its two check digits computed as the Receita Federal does): for test and benchmark data. */
export function withCpfCheckDigits(base: string): string {
  return base + checkDigits(base, CPF_WEIGHTS_1, CPF_WEIGHTS_2);
}

/**
 * Validates a CPF (11 digits) or CNPJ (14 characters, possibly alphanumeric) and returns
 * it without punctuation. Lower-case letters are accepted and upper-cased: the Receita
 * Federal only issues upper-case CNPJs, so case carries no meaning and refusing
 * "12.abc.345/01de-35" would only push clients to re-implement the same normalisation.
 */
export function normaliseCpfCnpj(input: string): ValidationResult {
  if (!ALLOWED.test(input)) return invalid('must contain only digits, letters, ".", "-" and "/"');
  const value = input.replace(PUNCTUATION, '').toUpperCase();

  if (value.length === 11) {
    if (!/^\d{11}$/.test(value)) return invalid('must contain only digits in a CPF');
    if (isRepeated(value)) return invalid('must not be a single repeated digit');
    if (checkDigits(value.slice(0, 9), CPF_WEIGHTS_1, CPF_WEIGHTS_2) !== value.slice(9)) {
      return invalid('invalid check digits');
    }
    return valid(value);
  }

  if (value.length === 14) {
    if (!/^[0-9A-Z]{12}\d{2}$/.test(value)) return invalid('must end with 2 numeric check digits in a CNPJ');
    if (isRepeated(value)) return invalid('must not be a single repeated character');
    if (checkDigits(value.slice(0, 12), CNPJ_WEIGHTS_1, CNPJ_WEIGHTS_2) !== value.slice(12)) {
      return invalid('invalid check digits');
    }
    return valid(value);
  }

  return invalid('must have 11 (CPF) or 14 (CNPJ) characters');
}
