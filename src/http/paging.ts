/**
 * Page parameters and the HAL page wrapper shared by every list of the API:
 * zero-based `page` (negative treated as 0), `pageSize` clamped to 1..200 (default 20), and
 * `_links` whose hrefs keep every filter of the request with the applied page size.
 */
import type { OperationContext, RequestContext } from './operation';

export const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 200;
// The requested page is reported as asked; only numbers past exact integers are capped.
const MAX_PAGE = Number.MAX_SAFE_INTEGER;

export interface PageRequest {
  number: number;
  size: number;
  offset: number;
}

export function pageRequest(query: OperationContext['request']['query']): PageRequest {
  const page = clamp(integer(query['page'], 0), 0, MAX_PAGE);
  const size = clamp(integer(query['pageSize'], DEFAULT_PAGE_SIZE), 1, MAX_PAGE_SIZE);
  // Repositories answer an empty page without querying when offset >= total, so an offset
  // beyond exact integers is never sent to the database.
  return { number: page, size, offset: page * size };
}

export interface HalPage<T> {
  _embedded: Record<string, T[]>;
  _links: Record<string, { href: string }>;
  page: { size: number; totalElements: number; totalPages: number; number: number };
}

export function halPage<T>(ctx: RequestContext, embeddedName: string, items: T[], totalElements: number, request: PageRequest): HalPage<T> {
  const totalPages = Math.ceil(totalElements / request.size);
  const last = Math.max(totalPages - 1, 0);
  const link = (number: number) => ({ href: pageHref(ctx, number, request.size) });
  const links: HalPage<T>['_links'] = { self: link(request.number), first: link(0), last: link(last) };
  if (request.number > 0) links['prev'] = link(Math.min(request.number - 1, last));
  if (request.number < totalPages - 1) links['next'] = link(request.number + 1);
  return {
    _embedded: { [embeddedName]: items },
    _links: links,
    page: { size: request.size, totalElements, totalPages, number: request.number },
  };
}

function pageHref(ctx: RequestContext, number: number, size: number): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(ctx.request.query)) {
    if (name === 'page' || name === 'pageSize' || value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) params.append(name, item);
  }
  params.set('page', String(number));
  params.set('pageSize', String(size));
  return `${ctx.baseUrl}${ctx.request.path}?${params.toString()}`;
}

function integer(value: string | string[] | undefined, fallback: number): number {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text === '') return fallback;
  const parsed = Number(text);
  return Number.isFinite(parsed) ? Math.trunc(parsed) : fallback;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), max);
}
