/**
 * Statement entries and their per-day totals, always filtered by the owning company. Knows the
 * tables, not the rules: the service decides signs and ranges. Aggregates are computed by
 * PostgreSQL over `ledger_daily_totals` (one row per company and day) and returned as NUMERIC
 * text, so no binary float ever holds a sum.
 */
import { Prisma, type StatementEntry, type StatementType } from '../generated/prisma/client';
import type { Queryable } from '../database/prisma-client';
import { readRows } from '../database/direct-reads';

export type StatementEntryRow = StatementEntry;

export interface NewEntryRow {
  companyId: string;
  date: string;
  description: string | null;
  type: StatementType;
  /** Signed, 2-decimal text. */
  amount: string;
  /** Day totals to add, 2-decimal text, both ≥ 0 (one of them 0). */
  credit: string;
  debit: string;
  rentalInsuranceId: bigint | null;
}

/**
 * Appends the entry and adds it to its day's totals in one statement, so the two can never
 * disagree even if the caller forgot the transaction. The ON CONFLICT update locks the day's row
 * until the caller's transaction ends: concurrent postings of one company and day queue there.
 */
export async function insertEntry(tx: Queryable, entry: NewEntryRow): Promise<StatementEntryRow> {
  const rows = await tx.$queryRaw<Array<{ id: bigint }>>`
    WITH entry AS (
      INSERT INTO statement_entries (company_id, date, description, amount, type, rental_insurance_id)
      VALUES (${entry.companyId}, ${entry.date}::date, ${entry.description}, ${entry.amount}::numeric,
              ${entry.type}::"StatementType", ${entry.rentalInsuranceId}::bigint)
      RETURNING id
    ), total AS (
      INSERT INTO ledger_daily_totals AS t (company_id, date, credits, debits)
      VALUES (${entry.companyId}, ${entry.date}::date, ${entry.credit}::numeric, ${entry.debit}::numeric)
      ON CONFLICT (company_id, date)
      DO UPDATE SET credits = t.credits + EXCLUDED.credits, debits = t.debits + EXCLUDED.debits
    )
    SELECT id FROM entry`;
  return tx.statementEntry.findUniqueOrThrow({ where: { id: rows[0]!.id } });
}

export interface TotalsText {
  credits: string;
  debits: string;
}

/** Sums of the company's day totals with `date < before` (or `date <= through`); always one row. */
export async function sumDailyTotals(db: Queryable, companyId: string, bound: { before: string } | { through: string }): Promise<TotalsText> {
  const condition = 'before' in bound ? Prisma.sql`date < ${bound.before}::date` : Prisma.sql`date <= ${bound.through}::date`;
  const rows = await readRows<TotalsText>(
    db,
    Prisma.sql`
    SELECT COALESCE(SUM(credits), 0)::text AS credits, COALESCE(SUM(debits), 0)::text AS debits
    FROM ledger_daily_totals WHERE company_id = ${companyId} AND ${condition}`,
  );
  return rows[0]!;
}

export interface DayTotalsText extends TotalsText {
  date: string;
}

/** The company's day totals from `startDate` to `endDate` (inclusive), oldest first; days without entries have no row. */
export function dailyTotals(db: Queryable, companyId: string, startDate: string, endDate: string): Promise<DayTotalsText[]> {
  return readRows<DayTotalsText>(
    db,
    Prisma.sql`
    SELECT to_char(date, 'YYYY-MM-DD') AS date, credits::text AS credits, debits::text AS debits
    FROM ledger_daily_totals
    WHERE company_id = ${companyId} AND date BETWEEN ${startDate}::date AND ${endDate}::date
    ORDER BY date`,
  );
}

export interface EntryFilter {
  startDate: string;
  endDate: string;
  /** Empty: every type. */
  types: StatementType[];
}

/**
 * One page of the company's entries, newest first (date, then id, descending), and the number of
 * matches. The count comes first, so a page past the end is never read; it is a sum of the
 * company's per-day and type counts (`statement_entry_counts`, kept by a trigger), never a count
 * of the entries themselves. Tagged raw SQL read through the driver adapter, like the guarantee's
 * reads: the model API's two calls cost a page about 1 ms of Prisma Client's CPU
 * (bench/results.md, "Statement entries through the driver adapter"); the rows are the model's
 * (test/financial/entry-rows-match-model.test.ts).
 */
export async function listEntries(
  db: Queryable,
  companyId: string,
  filter: EntryFilter,
  page: { offset: number; size: number },
): Promise<{ rows: StatementEntryRow[]; total: number }> {
  const conditions = [
    Prisma.sql`company_id = ${companyId}`,
    Prisma.sql`date BETWEEN ${filter.startDate}::date AND ${filter.endDate}::date`,
    ...(filter.types.length > 0 ? [Prisma.sql`type = ANY(${filter.types}::"StatementType"[])`] : []),
  ];
  const where = Prisma.join(conditions, ' AND ');
  const [counted] = await readRows<{ total: bigint }>(
    db,
    Prisma.sql`SELECT COALESCE(SUM(entries), 0)::int8 AS total FROM statement_entry_counts WHERE ${where}`,
  );
  const total = Number(counted!.total);
  if (page.offset >= total) return { rows: [], total };
  const rows = await readRows<StatementEntryRow>(
    db,
    Prisma.sql`
      SELECT id, company_id AS "companyId", date, description, amount, type::text AS type, rental_insurance_id AS "rentalInsuranceId",
             created_at AS "createdAt"
      FROM statement_entries WHERE ${where}
      ORDER BY date DESC, id DESC OFFSET ${page.offset} LIMIT ${page.size}`,
  );
  return { rows, total };
}
