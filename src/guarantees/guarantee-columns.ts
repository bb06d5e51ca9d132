/**
 * The SQL shape of a guarantee for the repository's tagged raw statements: every column under its
 * Prisma field name, the co-tenants as one JSON array, and the conversion back to Prisma's row
 * types (the same values the model API returns).
 */
import { Prisma, type CoTenant } from '../generated/prisma/client';
import type { GuaranteeRow } from './guarantee-mapper';

const GUARANTEE_COLUMNS = [
  ['id', 'id'],
  ['company_id', 'companyId'],
  ['external_id', 'externalId'],
  ['status', 'status'],
  ['version', 'version'],
  ['creator_name', 'creatorName'],
  ['creator_service_account', 'creatorServiceAccount'],
  ['tenant_cpf_cnpj', 'tenantCpfCnpj'],
  ['tenant_name', 'tenantName'],
  ['tenant_name_search', 'tenantNameSearch'],
  ['tenant_email', 'tenantEmail'],
  ['tenant_birth_date', 'tenantBirthDate'],
  ['tenant_phone', 'tenantPhone'],
  ['tenant_profession', 'tenantProfession'],
  ['property_external_id', 'propertyExternalId'],
  ['property_type', 'propertyType'],
  ['address_zip_code', 'addressZipCode'],
  ['address_street', 'addressStreet'],
  ['address_number', 'addressNumber'],
  ['address_complement', 'addressComplement'],
  ['address_neighborhood', 'addressNeighborhood'],
  ['address_city', 'addressCity'],
  ['address_state', 'addressState'],
  ['rental_amount', 'rentalAmount'],
  ['condo_fee', 'condoFee'],
  ['property_tax', 'propertyTax'],
  ['other_fees', 'otherFees'],
  ['setup_fee', 'setupFee'],
  ['installment_amount', 'installmentAmount'],
  ['coverage_limit', 'coverageLimit'],
  ['rent_coverage_limit', 'rentCoverageLimit'],
  ['remaining_coverage_amount', 'remainingCoverageAmount'],
  ['rent_remaining_coverage_amount', 'rentRemainingCoverageAmount'],
  ['start_billing_date', 'startBillingDate'],
  ['termination_date', 'terminationDate'],
  ['approved_at', 'approvedAt'],
  ['terminated_at', 'terminatedAt'],
  ['created_at', 'createdAt'],
  ['updated_at', 'updatedAt'],
] as const;

export type GuaranteeField = (typeof GUARANTEE_COLUMNS)[number][1];
const ENUM_COLUMNS = new Set(['status', 'property_type']);
const COLUMN_OF_FIELD = new Map<string, string>(GUARANTEE_COLUMNS.map(([column, field]) => [field, column]));

/** The guarantee's columns of `r` under their field names (a fixed text: no value is ever part of it). */
export const ROW_FIELDS = Prisma.raw(
  GUARANTEE_COLUMNS.map(([column, field]) => `r.${column}${ENUM_COLUMNS.has(column) ? '::text' : ''} AS "${field}"`).join(', '),
);
/** The co-tenants of `r`, oldest first, as one JSON array. */
export const CO_TENANTS_OF_R = Prisma.raw(
  `COALESCE((SELECT json_agg(c ORDER BY c.id) FROM co_tenants c WHERE c.rental_insurance_id = r.id), '[]') AS "coTenants"`,
);

/** The column of a field, for the assignments of an insert or an update (only known fields). */
export function columnOf(field: string): Prisma.Sql {
  const column = COLUMN_OF_FIELD.get(field);
  if (!column) throw new Error(`Unknown guarantee field ${field}`);
  return Prisma.raw(column);
}

/**
 * A value as a statement parameter. Dates travel as ISO text: PostgreSQL reads a DATE column's
 * text as that day, whatever the server's time zone.
 */
export const parameterOf = (value: unknown): unknown => (value instanceof Date ? value.toISOString() : value);

interface CoTenantJson {
  id: number;
  rental_insurance_id: number;
  cpf_cnpj: string;
  name: string;
  email: string | null;
  birth_date: string | null;
  phone_number: string | null;
  created_at: string;
}

/** A selected row: the guarantee and its co-tenants as JSON. */
export type GuaranteeRecord = Omit<GuaranteeRow, 'coTenants'> & { coTenants: CoTenantJson[] };

export function toGuaranteeRow(record: GuaranteeRecord): GuaranteeRow {
  return { ...record, coTenants: record.coTenants.map(toCoTenantRow) };
}

function toCoTenantRow(json: CoTenantJson): CoTenant {
  return {
    id: BigInt(json.id),
    rentalInsuranceId: BigInt(json.rental_insurance_id),
    cpfCnpj: json.cpf_cnpj,
    name: json.name,
    email: json.email,
    birthDate: json.birth_date === null ? null : new Date(`${json.birth_date}T00:00:00.000Z`),
    phoneNumber: json.phone_number,
    createdAt: new Date(json.created_at),
  };
}
