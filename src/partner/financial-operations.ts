/** The financial reads: balance, daily summaries and statement entries of the token's company. */
import { halPage, pageRequest } from '../http/paging';
import { defineOperation } from './partner-work';
import { toBalanceResponse, toDailySummaryResponse, toStatementEntryResponse } from '../financial/financial-mapper';

export const financialOperations = [
  defineOperation('getFinancialBalance', {
    replicaRead: true,
    handler: async (_input, work) => ({ status: 200, body: toBalanceResponse(await work.ledger.balance()) }),
  }),

  defineOperation('listDailySummaries', {
    replicaRead: true,
    handler: async ({ query }, work) => {
      const days = await work.ledger.dailySummaries({ startDate: query.startDate, endDate: query.endDate });
      return { status: 200, body: days.map(toDailySummaryResponse) };
    },
  }),

  defineOperation('listStatementEntries', {
    replicaRead: true,
    handler: async ({ query }, work, request) => {
      const page = pageRequest(query, request);
      const range = { startDate: query.startDate, endDate: query.endDate, types: query.type ?? [] };
      const { rows, total } = await work.ledger.statementEntries(range, page);
      return { status: 200, body: halPage(request, 'statementEntries', rows.map(toStatementEntryResponse), total, page) };
    },
  }),
];
