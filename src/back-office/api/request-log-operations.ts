/** Back office: an agency's request log as the agency reads it (issue 26 item 1; staff, ops:credentials:admin), each read audited. */
import { recordAudit } from '../../auth/audit-log';
import { pageLink } from '../../http/paging';
import { requestLogPage } from '../../request-log/request-log-page';
import { readRequestLog } from '../../request-log/request-log-reader';
import { defineOperation, SCOPE } from './back-office-work';

export const requestLogOperations = [
  defineOperation('listAgencyRequestLog', {
    handler: async ({ query }, work, request) => {
      const operator = work.operator('staff', SCOPE.admin);
      const { companyId, ...filters } = query;
      const page = await requestLogPage(
        filters,
        (read) => readRequestLog(work.db, companyId, read),
        (paging) => pageLink(request, paging),
      );
      // Staff reading an agency's traffic leave an entry (the filters' names, not their values), as
      // the contract's short codes of a details list: `statusClass` is `status_class`.
      await recordAudit(work.db, {
        actor: operator.audit,
        action: 'request_log.read',
        companyId,
        details: { filters: Object.keys(filters).sort().map(asCode), lines: page._embedded.requestLog.length },
      });
      return { status: 200, body: page };
    },
  }),
];

/** A query parameter's name as a details code (lower case, words joined by `_`). */
const asCode = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
