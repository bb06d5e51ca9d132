/**
 * What a partner's request becomes before its handler runs: the path's guarantee id, the list's
 * filters, and request bodies as column values (normalised identifiers, phones, CEPs and dates,
 * money as exact decimal strings). The operations' `normalise` steps call these once, after the
 * contract's validation (src/http/pipeline.ts); for a body that failed it, the same steps collect
 * the problems JSON Schema cannot see, reported beside the schema's. Problems are collected in
 * FieldProblems, each naming its field.
 */
import { fromDateOnly, todayInSaoPaulo } from '../database/column-values';
import type { components } from '../generated/partner-api';
import { centsToDecimalString, normaliseCep, normaliseCpfCnpj, normalisePhone, toCents, validateBirthDate, type FieldProblems } from '../validation';
import type { CoTenantColumns, GuaranteeField } from './guarantee-repository';
import type { GuaranteeFilters } from './guarantee-list';
import type { Status } from './transitions/status-machine';

type Schemas = components['schemas'];

export const MONEY_FIELDS = ['rentalAmount', 'condoFee', 'propertyTax', 'otherFees', 'setupFee'] as const;
export type MoneyField = (typeof MONEY_FIELDS)[number];

/** Values of the guarantee's fields that a partner controls (typed by the Prisma model). */
export type ColumnValues = Partial<Record<Exclude<GuaranteeField, 'id'>, string | Date | null>>;

/** `prefix.field`, or `field` at the top of the body. */
export const fieldPath = (prefix: string, field: string) => (prefix ? `${prefix}.${field}` : field);

/** The list filters of a validated query: the CPF/CNPJ and the name in the forms they are stored and searched in. */
export function guaranteeFilters(query: {
  propertyExternalId?: string;
  tenantCpfCnpj?: string;
  tenantName?: string;
  status?: Status[];
}): GuaranteeFilters {
  const cpfCnpj = query.tenantCpfCnpj === undefined ? undefined : normaliseCpfCnpj(query.tenantCpfCnpj);
  return {
    propertyExternalId: query.propertyExternalId,
    // An invalid number is not an error in a filter: in the stored form it just matches nothing.
    tenantCpfCnpj: cpfCnpj?.ok ? cpfCnpj.value : query.tenantCpfCnpj?.replace(/[.\-/]/g, '').toUpperCase(),
    tenantNameFolded: query.tenantName === undefined ? undefined : foldForSearch(query.tenantName),
    statuses: query.status ?? [],
  };
}

/** A name as the accent-insensitive search stores and looks for it. */
export function foldForSearch(name: string): string {
  return name
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase();
}

/** The co-tenant a path names: a formatted or unformatted CPF/CNPJ, one that is not well-formed a problem (400, the contract's). */
export function coTenantKey(problems: FieldProblems, raw: string): string {
  return problems.check('path.cpfCnpj', normaliseCpfCnpj(raw)) ?? raw;
}

// The people's fields run on bodies that may have failed schema validation too (to report every
// problem at once), so anything that is not a string is left to the schema's own finding.
function normaliseCpfCnpjField(problems: FieldProblems, path: string, value: string): string {
  if (typeof value !== 'string') return value;
  return problems.check(path, normaliseCpfCnpj(value)) ?? value;
}

function normalisePhoneField(problems: FieldProblems, path: string, value: string | null | undefined): string | null | undefined {
  if (typeof value !== 'string') return value;
  return problems.check(path, normalisePhone(value)) ?? value;
}

/** A birth date in the past (America/Sao_Paulo). */
function birthDateField(problems: FieldProblems, path: string, value: string | null | undefined): Date | null | undefined {
  if (typeof value !== 'string') return value as null | undefined;
  const today = fromDateOnly(todayInSaoPaulo());
  return problems.check(path, validateBirthDate(value, today)) === undefined ? undefined : fromDateOnly(value);
}

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

/** A new guarantee as a create request asks for it: its columns and its co-tenants' (createRentalInsurance). */
export function createColumns(problems: FieldProblems, body: Partial<CreateBody>) {
  return {
    columns: {
      ...tenantColumns(problems, 'tenant', objectOr<Schemas['TenantCreate']>(body.tenant)),
      ...propertyColumns(problems, objectOr<Schemas['PropertyCreate']>(body.property)),
      ...moneyColumns(problems, body),
      externalId: body.externalId ?? null,
    },
    coTenants: (Array.isArray(body.coTenants) ? body.coTenants : []).map((coTenant, index) =>
      coTenantColumns(problems, `coTenants[${index}]`, { cpfCnpj: '', ...objectOr<Schemas['CoTenantCreate']>(coTenant) }),
    ),
  };
}

export type NewGuarantee = ReturnType<typeof createColumns>;

/** Column values a merge patch asks for, only the fields present (patchRentalInsurance). */
export function patchColumns(problems: FieldProblems, patch: Partial<PatchBody>): ColumnValues {
  const requested: ColumnValues = {
    ...(patch.tenant ? tenantColumns(problems, 'tenant', objectOr<Schemas['TenantPatch']>(patch.tenant)) : {}),
    ...(patch.property ? propertyColumns(problems, objectOr<Schemas['PropertyPatch']>(patch.property)) : {}),
    ...moneyColumns(problems, patch),
  };
  if (patch.externalId !== undefined) requested['externalId'] = patch.externalId;
  return requested;
}

/** The new co-tenant's columns (addCoTenant). */
export function newCoTenantColumns(problems: FieldProblems, body: Partial<Schemas['CoTenantCreate']>): CoTenantColumns & { name: string } {
  return { ...coTenantColumns(problems, '', { cpfCnpj: '', ...objectOr<Schemas['CoTenantCreate']>(body) }), name: body.name! };
}

/** The co-tenant the path names and the changed columns a merge patch asks for (patchCoTenant). */
export function coTenantChanges(problems: FieldProblems, rawCpfCnpj: string, patch: Partial<Schemas['CoTenantPatch']>) {
  const cpfCnpj = coTenantKey(problems, rawCpfCnpj);
  const { cpfCnpj: _path, ...changes } = coTenantColumns(problems, '', { ...objectOr<Schemas['CoTenantPatch']>(patch), cpfCnpj: undefined as never });
  return { cpfCnpj, changes };
}
