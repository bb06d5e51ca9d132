/** Values the guarantee handlers read from a validated request. */
import { rentalInsuranceNotFound } from '../errors';
import { normaliseCpfCnpj } from '../validation';
import { foldForSearch } from './person-fields';
import type { GuaranteeFilters } from './guarantee-list';
import type { Status } from './status-machine';

/** The path id as the database's int8; the pipeline has checked it is a positive integer in canonical form. */
export function guaranteeId(id: number): bigint {
  if (!Number.isSafeInteger(id) || id < 1) throw rentalInsuranceNotFound();
  return BigInt(id);
}

/** The list filters of a validated query: the CPF/CNPJ and the name in the forms they are stored and searched in. */
export function guaranteeFilters(query: {
  propertyExternalId?: string;
  tenantCpfCnpj?: string;
  tenantName?: string;
  status?: Status[];
}): GuaranteeFilters {
  return {
    propertyExternalId: query.propertyExternalId,
    tenantCpfCnpj: query.tenantCpfCnpj === undefined ? undefined : normalisedForSearch(query.tenantCpfCnpj),
    tenantNameFolded: query.tenantName === undefined ? undefined : foldForSearch(query.tenantName),
    statuses: query.status ?? [],
  };
}

/** The filter matches the stored form; an invalid number is not an error, it just matches nothing. */
function normalisedForSearch(value: string): string {
  const result = normaliseCpfCnpj(value);
  return result.ok ? result.value : value.replace(/[.\-/]/g, '').toUpperCase();
}
