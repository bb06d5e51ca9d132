/** Guarantee rows, always filtered by the owning company. No status rules here. */
import type { Prisma } from '../generated/prisma/client';
import type { Queryable, Transaction } from '../database/prisma-client';
import type { Status } from './status-machine';
import type { GuaranteeRow } from './guarantee-mapper';

export interface LockedGuarantee {
  id: bigint;
  status: Status;
  version: number;
}

export function findGuarantee(db: Queryable, companyId: string, id: bigint): Promise<GuaranteeRow | null> {
  return db.rentalInsurance.findFirst({ where: { id, companyId }, include: { coTenants: { orderBy: { id: 'asc' } } } });
}

/** Locks the guarantee's row until the transaction ends, so concurrent writes apply one after another. */
export async function lockGuarantee(tx: Transaction, companyId: string, id: bigint): Promise<LockedGuarantee | null> {
  const rows = await tx.$queryRaw<LockedGuarantee[]>`
    SELECT id, status::text AS status, version FROM rental_insurances WHERE id = ${id} AND company_id = ${companyId} FOR UPDATE`;
  return rows[0] ?? null;
}

/** The back office reaches every company's guarantees. */
export async function lockGuaranteeAnyCompany(tx: Transaction, id: bigint): Promise<(LockedGuarantee & { companyId: string }) | null> {
  const rows = await tx.$queryRaw<Array<LockedGuarantee & { companyId: string }>>`
    SELECT id, status::text AS status, version, company_id AS "companyId" FROM rental_insurances WHERE id = ${id} FOR UPDATE`;
  return rows[0] ?? null;
}

export function insertGuarantee(tx: Transaction, data: Prisma.RentalInsuranceUncheckedCreateInput): Promise<GuaranteeRow> {
  return tx.rentalInsurance.create({ data, include: { coTenants: { orderBy: { id: 'asc' } } } });
}

/** Applies a change and moves to the next version. */
export function updateGuarantee(
  tx: Transaction,
  locked: LockedGuarantee,
  data: Prisma.RentalInsuranceUncheckedUpdateInput,
): Promise<GuaranteeRow> {
  return tx.rentalInsurance.update({
    where: { id: locked.id },
    data: { ...data, version: locked.version + 1, updatedAt: new Date() },
    include: { coTenants: { orderBy: { id: 'asc' } } },
  });
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
  companyId: string,
  filters: GuaranteeFilters,
  page: { offset: number; size: number },
): Promise<{ rows: GuaranteeRow[]; total: number }> {
  const where: Prisma.RentalInsuranceWhereInput = { companyId };
  if (filters.propertyExternalId !== undefined) where.propertyExternalId = filters.propertyExternalId;
  if (filters.tenantCpfCnpj !== undefined) where.tenantCpfCnpj = filters.tenantCpfCnpj;
  if (filters.tenantNameFolded !== undefined) where.tenantNameSearch = { contains: escapeLike(filters.tenantNameFolded) };
  if (filters.statuses && filters.statuses.length > 0) where.status = { in: filters.statuses };
  const total = await countGuarantees(db, companyId, filters, where);
  if (page.offset >= total) return { rows: [], total };
  const rows = await db.rentalInsurance.findMany({
    where,
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    skip: page.offset,
    take: page.size,
    include: { coTenants: { orderBy: { id: 'asc' } } },
  });
  return { rows, total };
}

/**
 * Without filters, or with status filters only, the total comes from the trigger-maintained
 * per-status counts (a few rows) instead of counting a company's guarantees one by one.
 */
async function countGuarantees(
  db: Queryable,
  companyId: string,
  filters: GuaranteeFilters,
  where: Prisma.RentalInsuranceWhereInput,
): Promise<number> {
  const onlyStatus = filters.propertyExternalId === undefined && filters.tenantCpfCnpj === undefined && filters.tenantNameFolded === undefined;
  if (!onlyStatus) return db.rentalInsurance.count({ where });
  const statuses = filters.statuses && filters.statuses.length > 0 ? { status: { in: filters.statuses } } : {};
  const sum = await db.guaranteeStatusCount.aggregate({ where: { companyId, ...statuses }, _sum: { count: true } });
  return Number(sum._sum.count ?? 0n);
}

/** `%` and `_` typed by a partner are literal characters, not wildcards. */
function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (character) => `\\${character}`);
}
