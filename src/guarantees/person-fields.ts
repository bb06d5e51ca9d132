/**
 * Normalisation of the people of a guarantee (tenant and co-tenants): CPF/CNPJ without punctuation,
 * phone in E.164, birth date in the past (America/Sao_Paulo), and the folded name used by the
 * accent-insensitive search.
 */
import { fromDateOnly, todayInSaoPaulo } from '../database/column-values';
import { normaliseCpfCnpj, normalisePhone, validateBirthDate } from '../validation';
import type { FieldProblems } from './field-problems';

export function foldForSearch(name: string): string {
  return name.normalize('NFD').replace(/\p{Diacritic}/gu, '').toLowerCase();
}

export function normaliseCpfCnpjField(problems: FieldProblems, path: string, value: string): string {
  return problems.check(path, normaliseCpfCnpj(value)) ?? value;
}

export function normalisePhoneField(problems: FieldProblems, path: string, value: string | null | undefined): string | null | undefined {
  if (value === null || value === undefined) return value;
  return problems.check(path, normalisePhone(value)) ?? value;
}

export function birthDateField(problems: FieldProblems, path: string, value: string | null | undefined): Date | null | undefined {
  if (value === null || value === undefined) return value;
  const today = fromDateOnly(todayInSaoPaulo());
  return problems.check(path, validateBirthDate(value, today)) === undefined ? undefined : fromDateOnly(value);
}
