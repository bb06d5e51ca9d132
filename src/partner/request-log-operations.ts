/** The agency's request log (issue 26 item 1): its recent requests, newest first, cursor-paged. */
import { pageLink } from '../http/paging';
import { requestLogPage } from '../request-log/request-log-page';
import { defineOperation } from './partner-work';

export const requestLogOperations = [
  defineOperation('listRequestLog', {
    handler: async ({ query }, work, request) => ({
      status: 200,
      body: await requestLogPage(
        query,
        (filters) => work.requestLog.read(filters),
        (paging) => pageLink(request, paging),
      ),
    }),
  }),
];
