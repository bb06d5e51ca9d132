/** Thin handlers of the Financial operations: read the validated query, call the service, shape the response. */
import type { OperationContext, PrincipalReadHandler } from '../http/operation';
import { halPage, pageRequest } from '../http/paging';
import { ValidationFailed } from '../errors';
import { isStatementType } from './ledger-rules';
import { getBalance, listDailySummaries, listStatementEntries } from './ledger-service';
import { toBalanceResponse, toDailySummaryResponse, toStatementEntryResponse } from './financial-mapper';

export function financialHandlers(): { read: Record<string, PrincipalReadHandler> } {
  return {
    read: {
      async getFinancialBalance(ctx, db) {
        const balance = await getBalance(db, ctx.principal.companyId);
        return { status: 200, body: toBalanceResponse(balance) };
      },

      async listDailySummaries(ctx, db) {
        const days = await listDailySummaries(db, ctx.principal.companyId, dateRange(ctx));
        return { status: 200, body: days.map(toDailySummaryResponse) };
      },

      async listStatementEntries(ctx, db) {
        const page = pageRequest(ctx.request.query);
        const { rows, total } = await listStatementEntries(db, ctx.principal.companyId, { ...dateRange(ctx), types: types(ctx) }, page);
        return { status: 200, body: halPage(ctx, 'statementEntries', rows.map(toStatementEntryResponse), total, page) };
      },
    },
  };
}

function dateRange(ctx: OperationContext): { startDate: string; endDate: string } {
  return { startDate: single(ctx, 'startDate'), endDate: single(ctx, 'endDate') };
}

function single(ctx: OperationContext, name: string): string {
  const value = ctx.request.query[name];
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) throw new ValidationFailed([`${name}: is required`]);
  return text;
}

function types(ctx: OperationContext) {
  const value = ctx.request.query['type'];
  const values = value === undefined ? [] : Array.isArray(value) ? value : [value];
  const unknown = values.filter((type) => !isStatementType(type));
  if (unknown.length > 0) throw new ValidationFailed(unknown.map((type) => `type: unknown statement type ${type}`));
  return values.filter(isStatementType);
}
