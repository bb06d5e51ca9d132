/** The agency's financial records (scope ri:financial:read). */
import type { components, operations } from './generated/partner-api.js';
import type { ResourceContext } from './rental-insurances.js';
import { callHeaders, resultOf, type ApiResult, type CallOptions } from './results.js';

export type Balance = components['schemas']['Balance'];
export type DailySummary = components['schemas']['DailySummary'];
export type StatementEntryPage = components['schemas']['StatementEntryPage'];
export type DateRange = operations['listDailySummaries']['parameters']['query'];
export type StatementQuery = operations['listStatementEntries']['parameters']['query'];

export function financial({ api }: Pick<ResourceContext, 'api'>) {
  return {
    async balance(options: CallOptions = {}): Promise<ApiResult<Balance>> {
      return resultOf(await api.GET('/v1/financial/balance', { params: { header: callHeaders(options) }, signal: options.signal }));
    },

    async dailySummaries(range: DateRange, options: CallOptions = {}): Promise<ApiResult<DailySummary[]>> {
      return resultOf(
        await api.GET('/v1/financial/daily-summaries', { params: { query: range, header: callHeaders(options) }, signal: options.signal }),
      );
    },

    async statementEntries(query: StatementQuery, options: CallOptions = {}): Promise<ApiResult<StatementEntryPage>> {
      return resultOf(await api.GET('/v1/financial/statement-entries', { params: { query, header: callHeaders(options) }, signal: options.signal }));
    },
  };
}
