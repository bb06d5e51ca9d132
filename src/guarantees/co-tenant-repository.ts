/** Co-tenant rows. The guarantee they belong to is locked (and its company checked) by the caller. */
import { sqlOf, type AnyTransaction } from '../database/sql';
import type { CoTenantColumns } from './guarantee-input';

const COLUMNS: Record<keyof CoTenantColumns, string> = {
  cpfCnpj: 'cpf_cnpj',
  name: 'name',
  email: 'email',
  birthDate: 'birth_date',
  phoneNumber: 'phone_number',
};

export async function insertCoTenant(tx: AnyTransaction, rentalInsuranceId: bigint, coTenant: CoTenantColumns & { name: string }): Promise<void> {
  await sqlOf(tx).rows(
    'INSERT INTO co_tenants (rental_insurance_id, cpf_cnpj, name, email, birth_date, phone_number) VALUES ($1, $2, $3, $4, $5, $6)',
    [rentalInsuranceId, coTenant.cpfCnpj, coTenant.name, coTenant.email ?? null, coTenant.birthDate ?? null, coTenant.phoneNumber ?? null],
  );
}

export async function updateCoTenant(tx: AnyTransaction, id: bigint, changes: Partial<CoTenantColumns>): Promise<void> {
  const fields = Object.keys(changes) as Array<keyof CoTenantColumns>;
  if (fields.length === 0) return;
  await sqlOf(tx).rows(
    `UPDATE co_tenants SET ${fields.map((field, index) => `${COLUMNS[field]} = $${index + 2}`).join(', ')} WHERE id = $1`,
    [id, ...fields.map((field) => changes[field] ?? null)],
  );
}

export async function deleteCoTenant(tx: AnyTransaction, id: bigint): Promise<void> {
  await sqlOf(tx).rows('DELETE FROM co_tenants WHERE id = $1', [id]);
}
