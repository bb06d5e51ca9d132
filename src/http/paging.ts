/**
 * Page parameters and the HAL page wrapper shared by every list of the API:
 * zero-based `page` (negative treated as 0), `pageSize` clamped to 1..the list's maximum (default 20), and
 * `_links` whose hrefs keep every filter of the request with the applied page size. Each link also
 * carries its `query` (the same parameters as values): a generated client cannot follow an absolute
 * URL, but it can call the list operation again with that object as its query.
 */
import type { RequestFacts } from './operation-registry';

export const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 200;
// The requested page is reported as asked; only numbers past exact integers are capped.
const MAX_PAGE = Number.MAX_SAFE_INTEGER;

export interface PageRequest {
  number: number;
  size: number;
  offset: number;
}

/**
 * From the validated query (integers, as the contract declares them). `pageSize` is clamped to the
 * list's own maximum (its `_embedded` list's maxItems in the contract, `request.list`): a list of
 * large items holds fewer per page, so that every page stays within the answers' budget in bytes.
 * `request` is required so that no operation can answer more items than its document allows by
 * forgetting it; the admin tool, which has no contract, passes `null`.
 */
export function pageRequest(query: { page?: number; pageSize?: number }, request: Pick<RequestFacts, 'list'> | null): PageRequest {
  const page = clamp(whole(query.page, 0), 0, MAX_PAGE);
  const size = clamp(whole(query.pageSize, DEFAULT_PAGE_SIZE), 1, request?.list?.items ?? MAX_PAGE_SIZE);
  // Repositories answer an empty page without querying when offset >= total, so an offset
  // beyond exact integers is never sent to the database.
  return { number: page, size, offset: page * size };
}

/** The linked page's query parameters, as validated (filters) plus its own paging values. */
export type LinkQuery = Record<string, string | number | string[]>;

export interface PageLink {
  href: string;
  query: LinkQuery;
}

export interface PageLinks {
  self: PageLink;
  first: PageLink;
  last: PageLink;
  prev?: PageLink;
  next?: PageLink;
}

export interface HalPage<T, Name extends string> {
  _embedded: { [K in Name]: T[] };
  _links: PageLinks;
  page: { size: number; totalElements: number; totalPages: number; number: number };
}

export function halPage<T, Name extends string>(
  request: RequestFacts,
  embeddedName: Name,
  items: T[],
  totalElements: number,
  page: PageRequest,
): HalPage<T, Name> {
  const totalPages = Math.ceil(totalElements / page.size);
  const last = Math.max(totalPages - 1, 0);
  const link = (number: number) => pageLink(request, { page: number, pageSize: page.size });
  const links: PageLinks = { self: link(page.number), first: link(0), last: link(last) };
  if (page.number > 0) links.prev = link(Math.min(page.number - 1, last));
  if (page.number < totalPages - 1) links.next = link(page.number + 1);
  return {
    _embedded: { [embeddedName]: items } as { [K in Name]: T[] },
    _links: links,
    page: { size: page.size, totalElements, totalPages, number: page.number },
  };
}

/**
 * A link to the same list with the request's filters and `paging` (page and pageSize, or the event
 * feed's after and limit) in place of the request's own paging values; `undefined` drops one.
 */
export function pageLink(request: RequestFacts, paging: Record<string, string | number | undefined>): PageLink {
  const query: LinkQuery = {};
  for (const [name, value] of Object.entries(request.query)) if (value !== undefined && !(name in paging)) query[name] = queryValue(value);
  for (const [name, value] of Object.entries(paging)) if (value !== undefined) query[name] = value;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const item of Array.isArray(value) ? value : [value]) params.append(name, String(item));
  }
  return { href: `${request.baseUrl}${request.path}?${params.toString()}`, query };
}

/** Validated values are strings, integers or arrays of strings (the contract's `LinkQuery`). */
function queryValue(value: unknown): string | number | string[] {
  if (Array.isArray(value)) return value.map(String);
  return typeof value === 'number' ? value : String(value);
}

function whole(value: number | undefined, fallback: number): number {
  return value === undefined || !Number.isFinite(value) ? fallback : Math.trunc(value);
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), max);
}
