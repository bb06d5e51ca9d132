/**
 * Statement entries and their per-day totals, always filtered by the owning company. Knows the
 * tables, not the rules: the service decides signs and ranges. Aggregates are computed by
 * PostgreSQL over `ledger_daily_totals` (one row per company and day) and returned as NUMERIC
 * text, so no binary float ever holds a sum.
 */
import type { StatementEntry, StatementType } from '../generated/prisma/client';
import type { Queryable, Transaction } from '../database/prisma-client';
import { sqlOf } from '../database/sql';
import { companyBinding, type CompanyScope } from '../auth/deferred-bearer';

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
export async function insertEntry(tx: Transaction, entry: NewEntryRow): Promise<StatementEntryRow> {
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

/**
 * Sums of the day totals with `date < before` (or `date <= through`) of the company in `scope`,
 * which may be a Bearer token that the statement checks (it always returns one row).
 */
export async function sumDailyTotals(db: Queryable, scope: CompanyScope, bound: { before: string } | { through: string }): Promise<TotalsText> {
  const binding = companyBinding(scope);
  const [operator, date] = 'before' in bound ? ['<', bound.before] : ['<=', bound.through];
  const rows = await sqlOf(db).rows<TotalsText & { bearerToken?: unknown }>(
    `${binding.withClause()} SELECT COALESCE(SUM(credits), 0)::text AS credits, COALESCE(SUM(debits), 0)::text AS debits${binding.tokenColumn}
     FROM ledger_daily_totals WHERE company_id = ${binding.company} AND date ${operator} $2::date`,
    [binding.firstValue, date],
    binding.statementName(`sum-daily-totals-${operator === '<' ? 'before' : 'through'}`),
  );
  await binding.settle(rows);
  return { credits: rows[0]!.credits, debits: rows[0]!.debits };
}

export interface DayTotalsText extends TotalsText {
  date: string;
}

/**
 * The day totals from `startDate` to `endDate` (inclusive) of the company in `scope`, oldest
 * first; days without entries have no row. A deferred token is not settled here: the caller
 * settles it (with `sumDailyTotals`) before using the rows.
 */
export function dailyTotals(db: Queryable, scope: CompanyScope, startDate: string, endDate: string): Promise<DayTotalsText[]> {
  const binding = companyBinding(scope);
  return sqlOf(db).rows<DayTotalsText>(
    `${binding.withClause()} SELECT to_char(date, 'YYYY-MM-DD') AS date, credits::text AS credits, debits::text AS debits
     FROM ledger_daily_totals
     WHERE company_id = ${binding.company} AND date BETWEEN $2::date AND $3::date
     ORDER BY date`,
    [binding.firstValue, startDate, endDate],
  );
}

export interface EntryFilter {
  startDate: string;
  endDate: string;
  /** Empty: every type. */
  types: StatementType[];
}

/**
 * One page of entries of the company in `scope`, newest first (date, then id, descending), and the
 * number of matches. The count comes first (one row, which carries a deferred token's check), so
 * a page past the end is never read.
 */
export async function listEntries(
  db: Queryable,
  scope: CompanyScope,
  filter: EntryFilter,
  page: { offset: number; size: number },
): Promise<{ rows: StatementEntryRow[]; total: number }> {
  const binding = companyBinding(scope);
  const values = [binding.firstValue, filter.startDate, filter.endDate, ...(filter.types.length > 0 ? [filter.types] : [])];
  const where = `company_id = ${binding.company} AND date BETWEEN $2::date AND $3::date${filter.types.length > 0 ? ' AND type = ANY($4::"StatementType"[])' : ''}`;
  const counted = await sqlOf(db).rows<{ total: bigint; bearerToken?: unknown }>(
    `${binding.withClause()} SELECT count(*)::int8 AS total${binding.tokenColumn} FROM statement_entries WHERE ${where}`,
    values,
  );
  await binding.settle(counted);
  const total = Number(counted[0]!.total);
  if (page.offset >= total) return { rows: [], total };
  const rows = await sqlOf(db).rows<StatementEntryRow>(
    `${binding.withClause()} SELECT id, company_id AS "companyId", date, description, amount, type::text AS type,
       rental_insurance_id AS "rentalInsuranceId", created_at AS "createdAt"
     FROM statement_entries WHERE ${where} ORDER BY date DESC, id DESC OFFSET $${values.length + 1} LIMIT $${values.length + 2}`,
    [...values, page.offset, page.size],
  );
  return { rows, total };
}
