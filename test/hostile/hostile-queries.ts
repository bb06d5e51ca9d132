/** Building hostile query strings for the hostile suites: which operations take which parameters, and values that are not integers. */
import fc from 'fast-check';
import type { HostileWorld } from '../support/hostile-world';
import { OPERATIONS, type OperationEntry } from '../support/operation-table';
import { pathOf, queryString, validRequest } from '../support/operation-requests';

export const RUNS = 30;
export const entries = (filter: (entry: OperationEntry) => boolean) => OPERATIONS.filter(filter).map((entry) => [entry.operationId, entry] as const);
export const paged = entries((entry) => ['listRentalInsurances', 'listStatementEntries'].includes(entry.operationId));
export const dated = entries((entry) => ['listDailySummaries', 'listStatementEntries'].includes(entry.operationId));

/** The valid request of `entry` with `extra` parameters added to its query, and the `replace` ones dropped from it. */
export function requestWithQuery(world: HostileWorld, entry: OperationEntry, extra: Array<[string, string]>, replace: string[] = []) {
  const request = validRequest(entry, world.target, world.agency.auth.Authorization);
  const base = (entry.query?.() ?? []).filter(([name]) => !replace.includes(name));
  request.path = pathOf(entry, world.target) + queryString([...base, ...extra]);
  return request;
}

/** Strings that are not integers for any reader: NaN or a finite non-integer (huge exponents excluded). */
export const notInteger = fc.oneof(
  fc.string({ maxLength: 12 }).filter((text) => {
    const value = Number(text);
    return Number.isNaN(value) || (Number.isFinite(value) && !Number.isInteger(value));
  }),
  fc
    .double({ noNaN: true, noDefaultInfinity: true })
    .filter((value) => !Number.isInteger(value))
    .map(String),
  fc.constantFrom('', 'one', '1.5', '-0.1', '1,2', '--1', '0x1g', 'NaN', '[]', '{}', 'null', 'true', '١٢', '１', '1 2', '%'),
);
