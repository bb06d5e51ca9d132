/**
 * Turns validated request bodies (their JSON Schema already passed) into column values:
 * normalised identifiers, phones, CEPs and dates, money as exact decimal strings. Problems
 * JSON Schema cannot see are collected in FieldProblems, each naming its field.
 */
import type { components } from '../generated/partner-api';
import { centsToDecimalString, normaliseCep, toCents } from '../validation';
import type { FieldProblems } from './field-problems';
import type { GuaranteeField } from './guarantee-columns';
import { birthDateField, foldForSearch, normaliseCpfCnpjField, normalisePhoneField } from './person-fields';

type Schemas = components['schemas'];

export const MONEY_FIELDS = ['rentalAmount', 'condoFee', 'propertyTax', 'otherFees', 'setupFee'] as const;
export type MoneyField = (typeof MONEY_FIELDS)[number];

/** Values of the guarantee's fields that a partner controls (typed by the Prisma model). */
export type ColumnValues = Partial<Record<Exclude<GuaranteeField, 'id'>, string | Date | null>>;

/** `prefix.field`, or `field` at the top of the body. */
export const fieldPath = (prefix: string, field: string) => (prefix ? `${prefix}.${field}` : field);

/** A body part that failed schema validation may be anything; rule checks look only inside objects. */
export function objectOr<T>(value: unknown): Partial<T> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Partial<T>) : {};
}

export function moneyValue(problems: FieldProblems, path: string, value: number | null | undefined): string | null | undefined {
  if (typeof value !== 'number') return value as null | undefined;
  const cents = toCents(value);
  if (cents === null) {
    problems.add(path, 'must have at most 2 decimal places');
    return undefined;
  }
  return centsToDecimalString(cents);
}

export function tenantColumns(problems: FieldProblems, path: string, tenant: Partial<Schemas['TenantCreate']>): ColumnValues {
  const columns: ColumnValues = {};
  if (tenant.cpfCnpj !== undefined) columns['tenantCpfCnpj'] = normaliseCpfCnpjField(problems, fieldPath(path, 'cpfCnpj'), tenant.cpfCnpj);
  if (tenant.name !== undefined) {
    columns['tenantName'] = tenant.name;
    if (typeof tenant.name === 'string') columns['tenantNameSearch'] = foldForSearch(tenant.name);
  }
  if (tenant.email !== undefined) columns['tenantEmail'] = tenant.email;
  const birthDate = birthDateField(problems, fieldPath(path, 'birthDate'), tenant.birthDate);
  if (birthDate !== undefined) columns['tenantBirthDate'] = birthDate;
  const phone = normalisePhoneField(problems, fieldPath(path, 'phoneNumber'), tenant.phoneNumber);
  if (phone !== undefined) columns['tenantPhone'] = phone;
  if (tenant.profession !== undefined) columns['tenantProfession'] = tenant.profession;
  return columns;
}

export function propertyColumns(problems: FieldProblems, property: Schemas['PropertyCreate'] | Schemas['PropertyPatch']): ColumnValues {
  const columns: ColumnValues = {};
  if (property.externalId !== undefined) columns['propertyExternalId'] = property.externalId;
  if (property.type !== undefined) columns['propertyType'] = property.type;
  const address = objectOr<Schemas['AddressPatch']>(property.address);
  if (typeof address.zipCode === 'string') {
    columns['addressZipCode'] = problems.check('property.address.zipCode', normaliseCep(address.zipCode)) ?? address.zipCode;
  }
  if (address.street !== undefined) columns['addressStreet'] = address.street;
  if (address.number !== undefined) columns['addressNumber'] = address.number;
  if (address.complement !== undefined) columns['addressComplement'] = address.complement;
  if (address.neighborhood !== undefined) columns['addressNeighborhood'] = address.neighborhood;
  if (address.city !== undefined) columns['addressCity'] = address.city;
  if (address.state !== undefined) columns['addressState'] = address.state;
  return columns;
}

export function moneyColumns(problems: FieldProblems, body: Partial<Record<MoneyField, number | null>>): ColumnValues {
  const columns: ColumnValues = {};
  for (const field of MONEY_FIELDS) {
    const value = moneyValue(problems, field, body[field]);
    if (value !== undefined) columns[field] = value;
  }
  return columns;
}

export interface CoTenantColumns {
  cpfCnpj: string;
  name?: string;
  email?: string | null;
  birthDate?: Date | null;
  phoneNumber?: string | null;
}

export function coTenantColumns(
  problems: FieldProblems,
  path: string,
  coTenant: Partial<Schemas['CoTenantCreate']> & { cpfCnpj: string },
): CoTenantColumns {
  const columns: CoTenantColumns = { cpfCnpj: normaliseCpfCnpjField(problems, fieldPath(path, 'cpfCnpj'), coTenant.cpfCnpj) };
  if (coTenant.name !== undefined) columns.name = coTenant.name;
  if (coTenant.email !== undefined) columns.email = coTenant.email;
  const birthDate = birthDateField(problems, fieldPath(path, 'birthDate'), coTenant.birthDate);
  if (birthDate !== undefined) columns.birthDate = birthDate;
  const phone = normalisePhoneField(problems, fieldPath(path, 'phoneNumber'), coTenant.phoneNumber);
  if (phone !== undefined) columns.phoneNumber = phone;
  return columns;
}

type CreateBody = Schemas['RentalInsuranceCreate'];
type PatchBody = Schemas['RentalInsurancePatch'];

/** Column values of a create request, problems recorded in `problems`. */
export function createColumns(problems: FieldProblems, body: Partial<CreateBody>) {
  return {
    tenant: tenantColumns(problems, 'tenant', objectOr<Schemas['TenantCreate']>(body.tenant)),
    property: propertyColumns(problems, objectOr<Schemas['PropertyCreate']>(body.property)),
    money: moneyColumns(problems, body),
    coTenants: (Array.isArray(body.coTenants) ? body.coTenants : []).map((coTenant, index) =>
      coTenantColumns(problems, `coTenants[${index}]`, { cpfCnpj: '', ...objectOr<Schemas['CoTenantCreate']>(coTenant) }),
    ),
  };
}

/** Column values a merge patch asks for (only the fields present). */
export function patchColumns(problems: FieldProblems, patch: Partial<PatchBody>): ColumnValues {
  const requested: ColumnValues = {
    ...(patch.tenant ? tenantColumns(problems, 'tenant', objectOr<Schemas['TenantPatch']>(patch.tenant)) : {}),
    ...(patch.property ? propertyColumns(problems, objectOr<Schemas['PropertyPatch']>(patch.property)) : {}),
    ...moneyColumns(problems, patch),
  };
  if (patch.externalId !== undefined) requested['externalId'] = patch.externalId;
  return requested;
}
