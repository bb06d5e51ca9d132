/**
 * One page of the request log as both APIs answer it: the lines after the cursor and the links.
 * `next` continues after the page's last line, and is left out when the page is not full (it
 * reached the oldest line kept): a newest-first log has nothing to poll for at its end.
 */
import type { PageLink } from '../http/paging';
import type { RequestLogQuery, RequestLogView } from './request-log-reader';

const DEFAULT_LIMIT = 50;

export interface RequestLogPage {
  _embedded: { requestLog: RequestLogView[] };
  _links: { self: PageLink; next?: PageLink };
}

export async function requestLogPage(
  query: Omit<RequestLogQuery, 'limit'> & { limit?: number },
  read: (query: RequestLogQuery) => Promise<RequestLogView[]>,
  link: (paging: { after: string | undefined; limit: number }) => PageLink,
): Promise<RequestLogPage> {
  const limit = query.limit ?? DEFAULT_LIMIT;
  const lines = await read({ ...query, limit });
  const links: RequestLogPage['_links'] = { self: link({ after: query.after, limit }) };
  if (lines.length === limit) links.next = link({ after: lines[lines.length - 1]!.cursor, limit });
  return { _embedded: { requestLog: lines }, _links: links };
}
