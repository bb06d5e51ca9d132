/** Guarantee rows, always filtered by the owning company. No status rules here. */
import type { CoTenant } from '../generated/prisma/client';
import type { CoTenantColumns } from './guarantee-input';
import type { Queryable, Transaction } from '../database/prisma-client';
import { sqlOf, statementNameFor, type AnyTransaction } from '../database/sql';
import { companyBinding, type CompanyScope } from '../auth/deferred-bearer';
import type { Status } from './status-machine';
import type { GuaranteeRow } from './guarantee-mapper';

export interface LockedGuarantee {
  id: bigint;
  status: Status;
  version: number;
}

/** Every column of a guarantee under its Prisma field name, and its co-tenants as one JSON array. */
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
const ENUM_COLUMNS = new Set(['status', 'property_type']);
const COLUMN_OF_FIELD = new Map<string, string>(GUARANTEE_COLUMNS.map(([column, field]) => [field, column]));
const ROW_FIELDS = GUARANTEE_COLUMNS.map(([column, field]) => `r.${column}${ENUM_COLUMNS.has(column) ? '::text' : ''} AS "${field}"`).join(', ');
const CO_TENANTS_OF_R = `COALESCE((SELECT json_agg(c ORDER BY c.id) FROM co_tenants c WHERE c.rental_insurance_id = r.id), '[]') AS "coTenants"`;
const SELECT_GUARANTEE_FIELDS = `SELECT ${ROW_FIELDS}, ${CO_TENANTS_OF_R}`;
const SELECT_GUARANTEE = `${SELECT_GUARANTEE_FIELDS} FROM rental_insurances r`;

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

/** A selected row: the guarantee, its co-tenants as JSON, and the checked token's row when the statement checked one. */
type GuaranteeRecord = Omit<GuaranteeRow, 'coTenants'> & { coTenants: CoTenantJson[]; bearerToken?: unknown };

function toGuaranteeRow({ bearerToken: _token, ...record }: GuaranteeRecord): GuaranteeRow {
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

/**
 * One round trip: the guarantee and its co-tenants, of the company in `scope` (which may be a
 * Bearer token that the same statement checks). Inside a transaction it sees the transaction's writes.
 */
export async function findGuarantee(db: Queryable, scope: CompanyScope, id: bigint): Promise<GuaranteeRow | null> {
  const binding = companyBinding(scope);
  const records = await sqlOf(db).rows<GuaranteeRecord>(
    `${binding.withClause()} ${SELECT_GUARANTEE_FIELDS}${binding.tokenColumn} FROM rental_insurances r WHERE r.company_id = ${binding.company} AND r.id = $2`,
    [binding.firstValue, id],
    binding.statementName('find-guarantee'),
  );
  await binding.settle(records);
  return records[0] ? toGuaranteeRow(records[0]) : null;
}

/**
 * Locks the guarantee's row until the transaction ends, so concurrent writes apply one after
 * another, and reads it with its co-tenants in the same round trip.
 */
export async function lockGuarantee(tx: AnyTransaction, companyId: string, id: bigint): Promise<GuaranteeRow | null> {
  const records = await sqlOf(tx).rows<GuaranteeRecord>(`${SELECT_GUARANTEE} WHERE r.id = $1 AND r.company_id = $2 FOR UPDATE OF r`, [id, companyId]);
  return records[0] ? toGuaranteeRow(records[0]) : null;
}

/** The back office reaches every company's guarantees. */
export async function lockGuaranteeAnyCompany(tx: Transaction, id: bigint): Promise<(LockedGuarantee & { companyId: string }) | null> {
  const rows = await tx.$queryRaw<Array<LockedGuarantee & { companyId: string }>>`
    SELECT id, status::text AS status, version, company_id AS "companyId" FROM rental_insurances WHERE id = ${id} FOR UPDATE`;
  return rows[0] ?? null;
}

/** Field name (as in GuaranteeRow) to column value. */
export type GuaranteeValues = Record<string, unknown>;

/** Inserts a guarantee and its co-tenants (in the order given) in one statement. */
export async function insertGuarantee(tx: AnyTransaction, values: GuaranteeValues, coTenants: CoTenantColumns[]): Promise<GuaranteeRow> {
  const { columns, parameters } = assignments(values);
  const coTenantsJson = JSON.stringify(
    coTenants.map((coTenant) => ({ ...coTenant, birthDate: coTenant.birthDate ? coTenant.birthDate.toISOString().slice(0, 10) : null })),
  );
  const text = `WITH r AS (
       INSERT INTO rental_insurances (${columns.join(', ')}) VALUES (${columns.map((_, index) => `$${index + 1}`).join(', ')}) RETURNING *
     ), c AS (
       INSERT INTO co_tenants (rental_insurance_id, cpf_cnpj, name, email, birth_date, phone_number)
       SELECT r.id, e.v->>'cpfCnpj', e.v->>'name', e.v->>'email', (e.v->>'birthDate')::date, e.v->>'phoneNumber'
       FROM r, jsonb_array_elements($${columns.length + 1}::jsonb) WITH ORDINALITY AS e(v, position)
       ORDER BY e.position
       RETURNING *
     )
     SELECT ${ROW_FIELDS}, COALESCE((SELECT json_agg(c ORDER BY c.id) FROM c), '[]') AS "coTenants" FROM r`;
  const records = await sqlOf(tx).rows<GuaranteeRecord>(text, [...parameters, coTenantsJson], statementNameFor('insert-guarantee', text));
  return toGuaranteeRow(records[0]!);
}

/** Applies a change and moves to the next version. */
export async function updateGuarantee(tx: AnyTransaction, locked: LockedGuarantee, values: GuaranteeValues): Promise<GuaranteeRow> {
  const { columns, parameters } = assignments({ ...values, version: locked.version + 1, updatedAt: new Date() });
  const text = `UPDATE rental_insurances r SET ${columns.map((column, index) => `${column} = $${index + 1}`).join(', ')}
     WHERE r.id = $${columns.length + 1} RETURNING ${ROW_FIELDS}, ${CO_TENANTS_OF_R}`;
  const records = await sqlOf(tx).rows<GuaranteeRecord>(text, [...parameters, locked.id], statementNameFor('update-guarantee', text));
  return toGuaranteeRow(records[0]!);
}

/** Column names and parameters of field values. */
function assignments(values: GuaranteeValues): { columns: string[]; parameters: unknown[] } {
  const entries = Object.entries(values);
  const columns = entries.map(([field]) => {
    const column = COLUMN_OF_FIELD.get(field);
    if (!column) throw new Error(`Unknown guarantee field ${field}`);
    return column;
  });
  return { columns, parameters: entries.map(([, value]) => value) };
}

export interface GuaranteeFilters {
  propertyExternalId?: string;
  tenantCpfCnpj?: string;
  /** Already folded (lower case, no accents). */
  tenantNameFolded?: string;
  statuses?: Status[];
}

export async function listGuarantees(
  db: Queryable,
  scope: CompanyScope,
  filters: GuaranteeFilters,
  page: { offset: number; size: number },
): Promise<{ rows: GuaranteeRow[]; total: number }> {
  // Every statement takes the company from the binding; the first one whose rows are used settles a deferred token.
  const binding = companyBinding(scope);
  const values: unknown[] = [binding.firstValue];
  // Conditions are written for any table alias: the page reads `r`, the totals count `c` or `s`.
  const conditions: Array<(alias: string) => string> = [(alias) => `${alias}.company_id = ${binding.company}`];
  const where = (condition: (alias: string, placeholder: string) => string, value: unknown) => {
    values.push(value);
    const placeholder = `$${values.length}`;
    conditions.push((alias) => condition(alias, placeholder));
  };
  if (filters.propertyExternalId !== undefined) where((a, p) => `${a}.property_external_id = ${p}`, filters.propertyExternalId);
  if (filters.tenantCpfCnpj !== undefined) where((a, p) => `${a}.tenant_cpf_cnpj = ${p}`, filters.tenantCpfCnpj);
  if (filters.tenantNameFolded !== undefined) where((a, p) => `${a}.tenant_name_search LIKE ${p}`, `%${escapeLike(filters.tenantNameFolded)}%`);
  // One status is an equality, so the (company, status, created_at) index returns the page in order.
  if (filters.statuses?.length === 1) where((a, p) => `${a}.status = ${p}::"RentalInsuranceStatus"`, filters.statuses[0]);
  else if (filters.statuses && filters.statuses.length > 1) where((a, p) => `${a}.status = ANY(${p}::"RentalInsuranceStatus"[])`, filters.statuses);
  const whereFor = (alias: string) => conditions.map((condition) => condition(alias)).join(' AND ');

  // Without filters, or with status filters only, the total comes from the trigger-maintained
  // per-status counts (a few rows, same column names) instead of counting guarantees one by one.
  const onlyStatus = filters.propertyExternalId === undefined && filters.tenantCpfCnpj === undefined && filters.tenantNameFolded === undefined;
  const countText = onlyStatus
    ? `SELECT COALESCE(SUM(s.count), 0)::int8 FROM guarantee_status_counts s WHERE ${whereFor('s')}`
    : `SELECT count(*)::int8 FROM rental_insurances c WHERE ${whereFor('c')}`;
  const [offset, limit] = [`$${values.length + 1}`, `$${values.length + 2}`];
  const pageValues = [...values, page.offset, page.size];
  const order = (alias: string) => `ORDER BY ${alias}.created_at DESC, ${alias}.id DESC`;
  const pageText = (extraColumns: string) =>
    `${SELECT_GUARANTEE_FIELDS}${extraColumns} FROM rental_insurances r WHERE ${whereFor('r')} ${order('r')} OFFSET ${offset} LIMIT ${limit}`;
  const sql = sqlOf(db);

  // One row whatever matches, so it always carries the token's check.
  const countAll = () => sql.rows<{ total: bigint; bearerToken?: unknown }>(`${binding.withClause()} SELECT (${countText}) AS total${binding.tokenColumn}`, values);
  const readPage = () => sql.rows<GuaranteeRecord>(`${binding.withClause()} ${pageText('')}`, pageValues);

  if (page.offset === 0 && filters.tenantNameFolded === undefined) {
    // Page and total in one round trip (the total is cheap here). No row on page 0 means no match at all.
    const records = await sql.rows<GuaranteeRecord & { total: bigint }>(`${binding.withClause()} ${pageText(`, (${countText}) AS total${binding.tokenColumn}`)}`, pageValues);
    await binding.settle(records);
    return { rows: records.map(({ total: _total, ...record }) => toGuaranteeRow(record)), total: Number(records[0]?.total ?? 0n) };
  }
  if (page.offset === 0) {
    // A name search costs an index scan for the page and another for the total: on a pool they
    // run on two connections at once.
    const [records, totals] = await Promise.all([readPage(), countAll()]);
    await binding.settle(totals);
    return { rows: records.map(toGuaranteeRow), total: Number(totals[0]!.total) };
  }
  // A later page first checks that it exists, so an offset past the end never makes PostgreSQL
  // skip through a company's rows.
  const totals = await countAll();
  await binding.settle(totals);
  const total = Number(totals[0]!.total);
  const records = page.offset < total ? await readPage() : [];
  return { rows: records.map(toGuaranteeRow), total };
}

/** `%` and `_` typed by a partner are literal characters, not wildcards. */
function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (character) => `\\${character}`);
}
