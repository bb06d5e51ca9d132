/** Co-tenant rows. The guarantee they belong to is locked (and its company checked) by the caller. */
import type { Queryable } from '../database/prisma-client';
import type { CoTenantColumns } from './guarantee-repository';

export async function insertCoTenant(db: Queryable, rentalInsuranceId: bigint, coTenant: CoTenantColumns & { name: string }): Promise<void> {
  await db.coTenant.create({
    data: {
      rentalInsuranceId,
      cpfCnpj: coTenant.cpfCnpj,
      name: coTenant.name,
      email: coTenant.email ?? null,
      birthDate: coTenant.birthDate ?? null,
      phoneNumber: coTenant.phoneNumber ?? null,
    },
  });
}

export async function updateCoTenant(db: Queryable, id: bigint, changes: Partial<CoTenantColumns>): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  await db.coTenant.update({ where: { id }, data: changes });
}

export async function deleteCoTenant(db: Queryable, id: bigint): Promise<void> {
  await db.coTenant.delete({ where: { id } });
}
