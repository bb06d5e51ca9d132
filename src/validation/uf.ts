import { invalid, valid, type ValidationResult } from './result';

export const UF_CODES = [
  'AC',
  'AL',
  'AP',
  'AM',
  'BA',
  'CE',
  'DF',
  'ES',
  'GO',
  'MA',
  'MT',
  'MS',
  'MG',
  'PA',
  'PB',
  'PR',
  'PE',
  'PI',
  'RJ',
  'RN',
  'RS',
  'SC',
  'SP',
  'SE',
  'TO',
  'RR',
  'RO',
] as const;

export type Uf = (typeof UF_CODES)[number];

const UF_SET: ReadonlySet<string> = new Set(UF_CODES);

export const isUf = (value: string): value is Uf => UF_SET.has(value);

// Case is not normalised: the contract fixes upper-case codes, so "sp" is a client bug
// worth reporting rather than silently fixing.
export function validateUf(input: string): ValidationResult {
  return isUf(input) ? valid(input) : invalid('must be a Brazilian UF code');
}
