/**
 * One page of a company's guarantees, newest first (createdAt, then id), with the exact number of
 * matches. Tagged raw SQL: the filters, the trigram name search and the totals need statements the
 * model API cannot write, and this is the busiest list of the API.
 */
import { Prisma } from '../generated/prisma/client';
import type { Queryable } from '../database/prisma-client';
import { readRows } from '../database/direct-reads';
import type { GuaranteeRow } from './guarantee-mapper';
import { ROW_FIELDS, CO_TENANTS_OF_R, toGuaranteeRow, type GuaranteeRecord } from './guarantee-repository';
import type { Status } from './transitions/status-machine';

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
  // Conditions are written for any table alias: the page reads `r`, the totals count `c` or `s`.
  const conditions: Array<(alias: Prisma.Sql) => Prisma.Sql> = [(a) => Prisma.sql`${a}.company_id = ${companyId}`];
  const { propertyExternalId, tenantCpfCnpj, tenantNameFolded, statuses = [] } = filters;
  if (propertyExternalId !== undefined) conditions.push((a) => Prisma.sql`${a}.property_external_id = ${propertyExternalId}`);
  if (tenantCpfCnpj !== undefined) conditions.push((a) => Prisma.sql`${a}.tenant_cpf_cnpj = ${tenantCpfCnpj}`);
  if (tenantNameFolded !== undefined) conditions.push((a) => Prisma.sql`${a}.tenant_name_search LIKE ${`%${escapeLike(tenantNameFolded)}%`}`);
  // One status is an equality, so the (company, status, created_at) index returns the page in order.
  if (statuses.length === 1) conditions.push((a) => Prisma.sql`${a}.status = ${statuses[0]}::"RentalInsuranceStatus"`);
  else if (statuses.length > 1) conditions.push((a) => Prisma.sql`${a}.status = ANY(${statuses}::"RentalInsuranceStatus"[])`);
  const where = (alias: string) =>
    Prisma.join(
      conditions.map((condition) => condition(Prisma.raw(alias))),
      ' AND ',
    );

  // Without filters, or with status filters only, the total comes from the trigger-maintained
  // per-status counts (a few rows, same column names) instead of counting guarantees one by one.
  const onlyStatus = propertyExternalId === undefined && tenantCpfCnpj === undefined && tenantNameFolded === undefined;
  const count = onlyStatus
    ? Prisma.sql`SELECT COALESCE(SUM(s.count), 0)::int8 FROM guarantee_status_counts s WHERE ${where('s')}`
    : Prisma.sql`SELECT count(*)::int8 FROM rental_insurances c WHERE ${where('c')}`;
  const pageOf = (extra: Prisma.Sql) => Prisma.sql`
    SELECT ${ROW_FIELDS}, ${CO_TENANTS_OF_R}${extra} FROM rental_insurances r WHERE ${where('r')}
    ORDER BY r.created_at DESC, r.id DESC ${pageWindow(page, statuses.length <= 1)}`;

  if (page.offset === 0 && tenantNameFolded === undefined) {
    // Page and total in one statement (the total is cheap here). No row on page 0 means no match at all.
    const records = await readRows<GuaranteeRecord & { total: bigint }>(db, pageOf(Prisma.sql`, (${count}) AS total`));
    return { rows: records.map(({ total: _total, ...record }) => toGuaranteeRow(record)), total: Number(records[0]?.total ?? 0n) };
  }
  const countAll = async () => Number((await readRows<{ total: bigint }>(db, Prisma.sql`SELECT (${count}) AS total`))[0]!.total);
  if (page.offset === 0) {
    // A name search costs an index scan for the page and another for the total: on a pool they
    // run on two connections at once.
    const [records, total] = await Promise.all([readRows<GuaranteeRecord>(db, pageOf(Prisma.empty)), countAll()]);
    return { rows: records.map(toGuaranteeRow), total };
  }
  // A later page first counts, so an offset past the end never makes PostgreSQL skip through a company's rows.
  const total = await countAll();
  const records = page.offset < total ? await readRows<GuaranteeRecord>(db, pageOf(Prisma.empty)) : [];
  return { rows: records.map(toGuaranteeRow), total };
}

/**
 * The page's rows. A LIMIT given as a parameter is planned as a tenth of the matches, so the plan
 * PostgreSQL could keep for the statement (src/database/statement-cache.ts) looks costly and it
 * plans the statement again on every request (more than the execution itself). The first page of
 * a list whose one plan suits every agency (equalities served by an index in the list's order, so
 * not several statuses, whose best plan depends on which) writes its size into the statement
 * instead: at most 200 texts, planned once per connection (bench/results.md, "Growth").
 */
function pageWindow(page: { offset: number; size: number }, oneIndexOrder: boolean): Prisma.Sql {
  if (page.offset === 0 && oneIndexOrder && Number.isInteger(page.size) && page.size >= 1 && page.size <= 200) {
    return Prisma.raw(`LIMIT ${page.size}`);
  }
  return Prisma.sql`OFFSET ${page.offset} LIMIT ${page.size}`;
}

/** `%` and `_` typed by a partner are literal characters, not wildcards. */
function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (character) => `\\${character}`);
}
