/** Thin handlers of the Financial operations: read the validated query, call the service, shape the response. */
import { tokenCheckingRead, type ReadHandler, type RequestContext } from '../http/operation';
import { halPage, pageRequest } from '../http/paging';
import { ValidationFailed } from '../errors';
import { isStatementType } from './ledger-rules';
import { getBalance, listDailySummaries, listStatementEntries } from './ledger-service';
import { toBalanceResponse, toDailySummaryResponse, toStatementEntryResponse } from './financial-mapper';

export function financialHandlers(): { read: Record<string, ReadHandler> } {
  return {
    read: {
      // Every financial read checks the Bearer token in its own statements (auth/deferred-bearer.ts).
      getFinancialBalance: tokenCheckingRead(async (ctx, db) => {
        const balance = await getBalance(db, ctx.bearer);
        return { status: 200, body: toBalanceResponse(balance) };
      }),

      listDailySummaries: tokenCheckingRead(async (ctx, db) => {
        const days = await listDailySummaries(db, ctx.bearer, dateRange(ctx));
        return { status: 200, body: days.map(toDailySummaryResponse) };
      }),

      listStatementEntries: tokenCheckingRead(async (ctx, db) => {
        const page = pageRequest(ctx.request.query);
        const { rows, total } = await listStatementEntries(db, ctx.bearer, { ...dateRange(ctx), types: types(ctx) }, page);
        return { status: 200, body: halPage(ctx, 'statementEntries', rows.map(toStatementEntryResponse), total, page) };
      }),
    },
  };
}

function dateRange(ctx: RequestContext): { startDate: string; endDate: string } {
  return { startDate: single(ctx, 'startDate'), endDate: single(ctx, 'endDate') };
}

function single(ctx: RequestContext, name: string): string {
  const value = ctx.request.query[name];
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) throw new ValidationFailed([`${name}: is required`]);
  return text;
}

function types(ctx: RequestContext) {
  const value = ctx.request.query['type'];
  const values = value === undefined ? [] : Array.isArray(value) ? value : [value];
  const unknown = values.filter((type) => !isStatementType(type));
  if (unknown.length > 0) throw new ValidationFailed(unknown.map((type) => `type: unknown statement type ${type}`));
  return values.filter(isStatementType);
}
