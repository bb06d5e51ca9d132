/** A partner's ledger, scoped to the company of the request's principal (what handlers see). */
import type { Queryable } from '../database/prisma-client';
import { getBalance, listDailySummaries, listStatementEntries, type StatementEntryQuery } from './ledger-service';

export function companyLedger(db: Queryable, companyId: string) {
  return {
    balance: () => getBalance(db, companyId),
    dailySummaries: (range: { startDate: string; endDate: string }) => listDailySummaries(db, companyId, range),
    statementEntries: (query: StatementEntryQuery, page: { offset: number; size: number }) => listStatementEntries(db, companyId, query, page),
  };
}

export type CompanyLedger = ReturnType<typeof companyLedger>;
