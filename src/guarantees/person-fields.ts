/**
 * Normalisation of the people of a guarantee (tenant and co-tenants): CPF/CNPJ without punctuation,
 * phone in E.164, birth date in the past (America/Sao_Paulo), and the folded name used by the
 * accent-insensitive search.
 */
import { fromDateOnly, todayInSaoPaulo } from '../database/column-values';
import { normaliseCpfCnpj, normalisePhone, validateBirthDate } from '../validation';
import type { FieldProblems } from './field-problems';

export function foldForSearch(name: string): string {
  return name
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase();
}

// These run on bodies that may have failed schema validation too (to report every problem at
// once), so anything that is not a string is left to the schema's own finding.
export function normaliseCpfCnpjField(problems: FieldProblems, path: string, value: string): string {
  if (typeof value !== 'string') return value;
  return problems.check(path, normaliseCpfCnpj(value)) ?? value;
}

export function normalisePhoneField(problems: FieldProblems, path: string, value: string | null | undefined): string | null | undefined {
  if (typeof value !== 'string') return value;
  return problems.check(path, normalisePhone(value)) ?? value;
}

export function birthDateField(problems: FieldProblems, path: string, value: string | null | undefined): Date | null | undefined {
  if (typeof value !== 'string') return value as null | undefined;
  const today = fromDateOnly(todayInSaoPaulo());
  return problems.check(path, validateBirthDate(value, today)) === undefined ? undefined : fromDateOnly(value);
}
