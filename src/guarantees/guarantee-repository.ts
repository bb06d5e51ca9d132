/**
 * Guarantee rows. Every statement a partner's request reaches is filtered by the owning company;
 * the back office's `lockGuaranteeAnyCompany` is the one exception. No status rules here.
 *
 * These are the hottest statements of the service, so they are Prisma's tagged raw SQL (one
 * statement for a guarantee and its co-tenants) rather than its model API: bench/results.md
 * measures what each costs.
 *
 * Their SQL shape is derived from the Prisma schema rather than restated: the scalar fields are
 * Prisma's generated `RentalInsuranceScalarFieldEnum` (in the schema's order), each column is its
 * field in snake_case (the schema's `@map` rule for every field), and the values a statement writes
 * are typed by the generated `RentalInsurance` model's fields, so an unknown or misspelt field does
 * not compile. Rows come back as Prisma's row types (the same values the model API returns); the
 * co-tenants' JSON shape is the generated `CoTenant` model under the same rule. The compiler does
 * not check the casts of `$queryRaw<GuaranteeRecord[]>` against what PostgreSQL returns (Prisma's
 * TypedSQL would: not done, see bench/results.md, "Unit of work");
 * test/guarantees/raw-rows-match-model.test.ts does, against the model API's read of the same rows.
 */
import { Prisma, type CoTenant, type RentalInsurance } from '../generated/prisma/client';
import type { Queryable } from '../database/prisma-client';
import { readRows } from '../database/direct-reads';
import type { GuaranteeRow } from './guarantee-mapper';
import type { Status } from './transitions/status-machine';

/** A scalar field of the guarantee model. */
export type GuaranteeField = keyof RentalInsurance;

/** A value a statement writes: money as an exact decimal string, a date as a Date. */
export type ColumnValue = string | number | boolean | Date | null;

/** Values of the guarantee's fields to write (its id is the database's). */
export type GuaranteeValues = Partial<Record<Exclude<GuaranteeField, 'id'>, ColumnValue>>;

/** The model's fields whose type is one of the schema's enums (compared as text); the type fails when the model's change. */
type EnumField = {
  [Field in GuaranteeField]: string extends RentalInsurance[Field] ? never : RentalInsurance[Field] extends string ? Field : never;
}[GuaranteeField];
const ENUM_FIELDS: Record<EnumField, true> = { status: true, propertyType: true };

const FIELDS = Object.values(Prisma.RentalInsuranceScalarFieldEnum);
const columnName = (field: string) => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** The guarantee's columns of `r` under their field names (a fixed text: no value is ever part of it). */
export const ROW_FIELDS = Prisma.raw(FIELDS.map((field) => `r.${columnName(field)}${field in ENUM_FIELDS ? '::text' : ''} AS "${field}"`).join(', '));
/** The co-tenants of `r`, oldest first, as one JSON array. */
export const CO_TENANTS_OF_R = Prisma.raw(
  `COALESCE((SELECT json_agg(c ORDER BY c.id) FROM co_tenants c WHERE c.rental_insurance_id = r.id), '[]') AS "coTenants"`,
);

/** The column of a field, for the assignments of an insert or an update. */
export const columnOf = (field: GuaranteeField): Prisma.Sql => Prisma.raw(columnName(field));

/**
 * A value as a statement parameter. Dates travel as ISO text: PostgreSQL reads a DATE column's
 * text as that day, whatever the server's time zone.
 */
export const parameterOf = (value: unknown): unknown => (value instanceof Date ? value.toISOString() : value);

/** A field name in snake_case: the schema's `@map` rule for every field. */
type SnakeCase<Name extends string> = Name extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${SnakeCase<Tail>}`
  : Name;
/** How PostgreSQL's json_agg writes a value of the model's type: bigints as numbers, dates and times as text. */
type JsonOf<Value> = Value extends bigint ? number : Value extends Date ? string : Value;
/** A co-tenant row as json_agg writes it: derived from the generated `CoTenant` model, never restated. */
type CoTenantJson = { [Field in keyof CoTenant & string as SnakeCase<Field>]: JsonOf<CoTenant[Field]> };

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

/** A co-tenant's columns as the statements write them. */
export interface CoTenantColumns {
  cpfCnpj: string;
  name?: string;
  email?: string | null;
  birthDate?: Date | null;
  phoneNumber?: string | null;
}

export interface LockedGuarantee {
  id: bigint;
  status: Status;
  version: number;
  /** How far the guarantee's clock runs ahead of the wall clock (sandbox time travel); 0 or absent: not at all. */
  clockOffsetMs?: bigint;
  /** The time a change happens, when the caller sets it (time travel applies each step at the time it was due). */
  at?: Date;
}

/**
 * When a change of `guarantee` happens, or undefined for "now on the wall clock" (the columns'
 * defaults then apply). Every guarantee lives on the wall clock except a sandbox guarantee whose
 * clock a partner advanced (src/sandbox/time-travel.ts): its clock runs `clockOffsetMs` ahead, and
 * each of its changes is stamped with that time (history `createdAt`, events' `occurredAt`,
 * `updatedAt`, `approvedAt`, `terminatedAt`, the ledger entries' day).
 */
export function changeTime(guarantee: Pick<LockedGuarantee, 'clockOffsetMs' | 'at'>): Date | undefined {
  if (guarantee.at) return guarantee.at;
  const offset = guarantee.clockOffsetMs ?? 0n;
  return offset === 0n ? undefined : new Date(Date.now() + Number(offset));
}

const entriesOf = (values: GuaranteeValues) => Object.entries(values) as Array<[GuaranteeField, unknown]>;

const SELECT_GUARANTEE = Prisma.sql`SELECT ${ROW_FIELDS}, ${CO_TENANTS_OF_R} FROM rental_insurances r`;

/** The guarantee and its co-tenants, when it is the company's. Inside a transaction it sees the transaction's writes. */
export async function findGuarantee(db: Queryable, companyId: string, id: bigint): Promise<GuaranteeRow | null> {
  const records = await readRows<GuaranteeRecord>(db, Prisma.sql`${SELECT_GUARANTEE} WHERE r.company_id = ${companyId} AND r.id = ${id}`);
  return records[0] ? toGuaranteeRow(records[0]) : null;
}

/**
 * Locks the company's guarantee until the transaction ends, so concurrent writes apply one after
 * another, and reads it with its co-tenants in the same statement.
 */
export async function lockGuarantee(db: Queryable, companyId: string, id: bigint): Promise<GuaranteeRow | null> {
  const records = await db.$queryRaw<GuaranteeRecord[]>`${SELECT_GUARANTEE} WHERE r.company_id = ${companyId} AND r.id = ${id} FOR UPDATE OF r`;
  return records[0] ? toGuaranteeRow(records[0]) : null;
}

/** The id and status of the company's guarantee (reads of its history and signatures start here). */
export async function guaranteeStatus(db: Queryable, companyId: string, id: bigint): Promise<LockedGuarantee | null> {
  const rows = await readRows<LockedGuarantee>(
    db,
    Prisma.sql`
    SELECT id, status::text AS status, version FROM rental_insurances WHERE company_id = ${companyId} AND id = ${id}`,
  );
  return rows[0] ?? null;
}

/** The back office reaches every company's guarantees. */
export async function lockGuaranteeAnyCompany(db: Queryable, id: bigint): Promise<(LockedGuarantee & { companyId: string }) | null> {
  const rows = await db.$queryRaw<Array<LockedGuarantee & { companyId: string }>>`
    SELECT id, status::text AS status, version, company_id AS "companyId", clock_offset_ms AS "clockOffsetMs"
    FROM rental_insurances WHERE id = ${id} FOR UPDATE`;
  return rows[0] ?? null;
}

/** Inserts a guarantee and its co-tenants (in the order given) in one statement. */
export async function insertGuarantee(db: Queryable, values: GuaranteeValues, coTenants: CoTenantColumns[]): Promise<GuaranteeRow> {
  const entries = entriesOf(values);
  const coTenantsJson = JSON.stringify(
    coTenants.map((coTenant) => ({ ...coTenant, birthDate: coTenant.birthDate ? coTenant.birthDate.toISOString().slice(0, 10) : null })),
  );
  const records = await db.$queryRaw<GuaranteeRecord[]>`
    WITH r AS (
      INSERT INTO rental_insurances (${Prisma.join(entries.map(([field]) => columnOf(field)))})
      VALUES (${Prisma.join(entries.map(([, value]) => parameterOf(value)))}) RETURNING *
    ), c AS (
      INSERT INTO co_tenants (rental_insurance_id, cpf_cnpj, name, email, birth_date, phone_number)
      SELECT r.id, e.v->>'cpfCnpj', e.v->>'name', e.v->>'email', (e.v->>'birthDate')::date, e.v->>'phoneNumber'
      FROM r, jsonb_array_elements(${coTenantsJson}::jsonb) WITH ORDINALITY AS e(v, position)
      ORDER BY e.position
      RETURNING *
    )
    SELECT ${ROW_FIELDS}, COALESCE((SELECT json_agg(c ORDER BY c.id) FROM c), '[]') AS "coTenants" FROM r`;
  return toGuaranteeRow(records[0]!);
}

/** Applies a change to a locked guarantee and moves it to the next version (`updatedAt`: now unless given). */
export async function updateGuarantee(db: Queryable, locked: LockedGuarantee, values: GuaranteeValues): Promise<GuaranteeRow> {
  const assignments = entriesOf({ updatedAt: new Date(), ...values, version: locked.version + 1 }).map(
    ([field, value]) => Prisma.sql`${columnOf(field)} = ${parameterOf(value)}`,
  );
  const records = await db.$queryRaw<GuaranteeRecord[]>`
    UPDATE rental_insurances r SET ${Prisma.join(assignments)} WHERE r.id = ${locked.id} RETURNING ${ROW_FIELDS}, ${CO_TENANTS_OF_R}`;
  return toGuaranteeRow(records[0]!);
}
