/**
 * The agency's ledger: posting entries (inside a caller's transaction), the balance, daily
 * summaries and statement entries. Knows nothing of HTTP. All amounts are integer cents.
 *
 * Dates are calendar days in America/Sao_Paulo. The balance covers entries dated up to today, so
 * it always equals today's `closingBalance`; an entry dated in the future counts from its day on.
 */
import type { StatementType } from '../generated/prisma/client';
import type { Queryable } from '../database/prisma-client';
import type { UnitOfWork } from '../database/unit-of-work';
import { todayInSaoPaulo } from '../database/column-values';
import { ValidationFailed } from '../errors';
import { emitEvent } from '../events/outbox';
import { toStatementEntryResponse, type BalanceCents, type DailySummaryCents } from './financial-mapper';
import { addDays, daysBetween, isDateOnly, validateDateRange } from './date-range';
import { isCredit, isStatementType, signedCents } from './ledger-rules';
import { centsToDecimalString, decimalTextToCents, MAX_ABS_CENTS } from './money';
import * as ledger from './ledger-repository';
import type { StatementEntryRow } from './ledger-repository';

export type { StatementEntryRow } from './ledger-repository';

export interface NewStatementEntry {
  companyId: string;
  /** Calendar day (America/Sao_Paulo), `YYYY-MM-DD`. */
  date: string;
  description: string | null;
  type: StatementType;
  /** Absolute value in cents, > 0; the sign comes from `type`. */
  amountCents: bigint;
  rentalInsuranceId?: bigint;
  /** When it was posted, when not now (its event's `occurredAt`; a time-travelled sandbox guarantee's own time). */
  at?: Date;
}

/**
 * Appends an entry to the company's ledger and to its day's totals, in the caller's unit of work's
 * transaction (so it commits or rolls back with the caller's own writes). Entries are never
 * updated or deleted; a correction is a new entry. Throws `ValidationFailed` for a non-positive
 * or too large amount, an unknown type or a malformed date.
 */
export async function postStatementEntry(unit: UnitOfWork, entry: NewStatementEntry): Promise<StatementEntryRow> {
  const problems: string[] = [];
  if (typeof entry.companyId !== 'string' || entry.companyId.trim() === '') problems.push('companyId: is required');
  if (typeof entry.date !== 'string' || !isDateOnly(entry.date)) problems.push('date: must be a date (YYYY-MM-DD)');
  if (typeof entry.type !== 'string' || !isStatementType(entry.type)) problems.push(`type: unknown statement type ${String(entry.type)}`);
  if (typeof entry.amountCents !== 'bigint') problems.push('amountCents: must be a bigint');
  else if (entry.amountCents <= 0n) problems.push('amountCents: must be greater than 0 (the sign comes from the type)');
  else if (entry.amountCents > MAX_ABS_CENTS) problems.push('amountCents: must be at most 99999999999999 (999,999,999,999.99)');
  if (entry.description !== null && typeof entry.description !== 'string') problems.push('description: must be a string or null');
  if (problems.length > 0) throw new ValidationFailed(problems, 'The statement entry is invalid.');

  const absolute = centsToDecimalString(entry.amountCents);
  const credit = isCredit(entry.type);
  const row = await ledger.insertEntry(unit.db, {
    companyId: entry.companyId,
    date: entry.date,
    description: entry.description,
    type: entry.type,
    amount: centsToDecimalString(signedCents(entry.type, entry.amountCents)),
    credit: credit ? absolute : '0',
    debit: credit ? '0' : absolute,
    rentalInsuranceId: entry.rentalInsuranceId ?? null,
  });
  // The outbox event of the new entry, appended to the posting's unit of work.
  const data = {
    statementEntry: toStatementEntryResponse(row),
    rentalInsuranceId: row.rentalInsuranceId === null ? null : Number(row.rentalInsuranceId),
  };
  emitEvent(unit, { companyId: row.companyId, type: 'statement_entry.created', data, ...(entry.at ? { occurredAt: entry.at } : {}) });
  return row;
}

/** The balance over every entry dated up to `today`: sums of the day totals, never of entries. */
export async function getBalance(db: Queryable, companyId: string, today = todayInSaoPaulo()): Promise<BalanceCents> {
  return totalsToCents(await ledger.sumDailyTotals(db, companyId, { through: today }));
}

/**
 * One summary per day from `startDate` to `endDate` (inclusive, at most 366 days), oldest first,
 * days without entries included, days after `today` left out. Reads one sum of the day totals
 * before the range and the day totals inside it.
 */
export async function listDailySummaries(
  db: Queryable,
  companyId: string,
  range: { startDate: string; endDate: string },
  today = todayInSaoPaulo(),
): Promise<DailySummaryCents[]> {
  const { startDate, endDate } = validateDateRange(range.startDate, range.endDate);
  const lastDay = endDate < today ? endDate : today;
  if (startDate > lastDay) return [];
  // Two statements at once, on two pooled connections.
  const [before, days] = await Promise.all([
    ledger.sumDailyTotals(db, companyId, { before: startDate }),
    ledger.dailyTotals(db, companyId, startDate, lastDay),
  ]);
  const totalsByDay = new Map(days.map((day) => [day.date, totalsToCents(day)]));
  let balance = totalsToCents(before).balance;
  const summaries: DailySummaryCents[] = [];
  for (let offset = 0, count = daysBetween(startDate, lastDay); offset <= count; offset += 1) {
    const date = addDays(startDate, offset);
    const day = totalsByDay.get(date);
    const credits = day?.credits ?? 0n;
    const debits = day?.debits ?? 0n;
    const openingBalance = balance;
    balance = openingBalance + credits - debits;
    summaries.push({ date, openingBalance, closingBalance: balance, credits, debits });
  }
  return summaries;
}

export interface StatementEntryQuery {
  startDate: string;
  endDate: string;
  /** Empty or absent: every type. */
  types?: StatementType[];
}

/** One page of the company's entries in the range (at most 366 days), newest first. */
export async function listStatementEntries(
  db: Queryable,
  companyId: string,
  query: StatementEntryQuery,
  page: { offset: number; size: number },
): Promise<{ rows: StatementEntryRow[]; total: number }> {
  const { startDate, endDate } = validateDateRange(query.startDate, query.endDate);
  const types = [...new Set(query.types ?? [])];
  return ledger.listEntries(db, companyId, { startDate, endDate, types }, page);
}

function totalsToCents(totals: ledger.TotalsText): BalanceCents {
  const credits = decimalTextToCents(totals.credits);
  const debits = decimalTextToCents(totals.debits);
  return { balance: credits - debits, credits, debits };
}
