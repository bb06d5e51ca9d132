/**
 * The SQL shape of a guarantee for the repository's tagged raw statements, derived from the Prisma
 * schema rather than restated: its scalar fields are Prisma's generated
 * `RentalInsuranceScalarFieldEnum` (in the schema's order), each column is its field in snake_case
 * (the schema's `@map` rule for every field), and the values a statement writes are typed by the
 * generated `RentalInsurance` model's fields, so an unknown or misspelt field does not compile. Rows come
 * back as Prisma's row types (the same values the model API returns); the co-tenants' JSON shape is
 * the generated `CoTenant` model under the same rule. The compiler does not check the casts of
 * `$queryRaw<GuaranteeRecord[]>` against what PostgreSQL returns (Prisma's TypedSQL would: not done,
 * see bench/results.md, "Unit of work"); test/guarantees/raw-rows-match-model.test.ts does, against
 * the model API's read of the same rows.
 */
import { Prisma, type CoTenant, type RentalInsurance } from '../generated/prisma/client';
import type { GuaranteeRow } from './guarantee-mapper';

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
