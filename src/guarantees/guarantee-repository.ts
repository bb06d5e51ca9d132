/**
 * Guarantee rows. Every statement a partner's request reaches is filtered by the owning company;
 * the back office's `lockGuaranteeAnyCompany` is the one exception. No status rules here.
 *
 * These are the hottest statements of the service, so they are Prisma's tagged raw SQL (one
 * statement for a guarantee and its co-tenants) rather than its model API: bench/results.md
 * measures what each costs.
 */
import { Prisma } from '../generated/prisma/client';
import type { Queryable } from '../database/prisma-client';
import type { CoTenantColumns } from './guarantee-input';
import type { GuaranteeRow } from './guarantee-mapper';
import {
  CO_TENANTS_OF_R,
  columnOf,
  parameterOf,
  ROW_FIELDS,
  toGuaranteeRow,
  type GuaranteeField,
  type GuaranteeRecord,
  type GuaranteeValues,
} from './guarantee-columns';
import type { Status } from './transitions/status-machine';

export interface LockedGuarantee {
  id: bigint;
  status: Status;
  version: number;
  /** How far the guarantee's clock runs ahead of the wall clock (sandbox time travel); 0 or absent: not at all. */
  clockOffsetMs?: bigint;
  /** The time a change happens, when the caller sets it (time travel applies each step at the time it was due). */
  at?: Date;
}

export type { GuaranteeValues };

const entriesOf = (values: GuaranteeValues) => Object.entries(values) as Array<[GuaranteeField, unknown]>;

const SELECT_GUARANTEE = Prisma.sql`SELECT ${ROW_FIELDS}, ${CO_TENANTS_OF_R} FROM rental_insurances r`;

/** The guarantee and its co-tenants, when it is the company's. Inside a transaction it sees the transaction's writes. */
export async function findGuarantee(db: Queryable, companyId: string, id: bigint): Promise<GuaranteeRow | null> {
  const records = await db.$queryRaw<GuaranteeRecord[]>`${SELECT_GUARANTEE} WHERE r.company_id = ${companyId} AND r.id = ${id}`;
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
  const rows = await db.$queryRaw<LockedGuarantee[]>`
    SELECT id, status::text AS status, version FROM rental_insurances WHERE company_id = ${companyId} AND id = ${id}`;
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
