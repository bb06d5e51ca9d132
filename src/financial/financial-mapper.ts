/** Ledger values (integer cents, DATE rows) to the contract's response shapes. */
import type { components } from '../generated/partner-api';
import { decimalToNumber, toDateOnly } from '../database/column-values';
import { centsToNumber } from './money';
import type { StatementEntryRow } from './ledger-repository';

/** The ledger's sums, in integer cents. */
export interface BalanceCents {
  balance: bigint;
  credits: bigint;
  debits: bigint;
}

export interface DailySummaryCents {
  date: string;
  openingBalance: bigint;
  closingBalance: bigint;
  credits: bigint;
  debits: bigint;
}

export type BalanceResponse = components['schemas']['Balance'];
export type DailySummaryResponse = components['schemas']['DailySummary'];
export type StatementEntryResponse = components['schemas']['StatementEntry'];

export function toBalanceResponse(balance: BalanceCents): BalanceResponse {
  return { balance: centsToNumber(balance.balance), credits: centsToNumber(balance.credits), debits: centsToNumber(balance.debits) };
}

export function toDailySummaryResponse(day: DailySummaryCents): DailySummaryResponse {
  return {
    date: day.date,
    openingBalance: centsToNumber(day.openingBalance),
    closingBalance: centsToNumber(day.closingBalance),
    credits: centsToNumber(day.credits),
    debits: centsToNumber(day.debits),
  };
}

export function toStatementEntryResponse(row: StatementEntryRow): StatementEntryResponse {
  return {
    id: Number(row.id),
    date: toDateOnly(row.date)!,
    description: row.description,
    amount: decimalToNumber(row.amount)!,
    type: row.type,
  };
}
