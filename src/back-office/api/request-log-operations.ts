/** Back office: an agency's request log as the agency reads it (issue 26 item 1; staff, ops:credentials:admin). */
import { pageLink } from '../../http/paging';
import { requestLogPage } from '../../request-log/request-log-page';
import { readRequestLog } from '../../request-log/request-log-reader';
import { defineOperation, SCOPE } from './back-office-work';

export const requestLogOperations = [
  defineOperation('listAgencyRequestLog', {
    handler: async ({ query }, work, request) => {
      work.operator('staff', SCOPE.admin);
      const { companyId, ...filters } = query;
      return {
        status: 200,
        body: await requestLogPage(
          filters,
          (read) => readRequestLog(work.db, companyId, read),
          (paging) => pageLink(request, paging),
        ),
      };
    },
  }),
];
