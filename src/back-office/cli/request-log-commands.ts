/** Admin tool: an agency's request log, newest first, as the agency reads it (issue 26 item 1). */
import { readRequestLog } from '../../request-log/request-log-reader';
import { recordAudit } from '../../auth/audit-log';
import { optionalText, readerOf, requiredOption, UsageError, type CliCommand } from './cli-command';

export const requestLogCommands: CliCommand[] = [
  {
    name: 'request-log list',
    summary: "An agency's latest requests to the partner API (never a secret, token or body)",
    options: {
      company: { description: 'the agency (company id)', required: true },
      'status-class': { description: 'only 2xx, 3xx, 4xx or 5xx (comma-separated)' },
      'correlation-id': { description: 'only the request answered with this X-Correlation-Id' },
      limit: { description: 'lines, 1 to 200 (default 50)' },
      staff: { description: 'your name, for the audit log (default: admin-cli)' },
    },
    async run(ctx) {
      const limit = Number(optionalText(ctx, 'limit') ?? 50);
      if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw new UsageError('--limit must be an integer from 1 to 200');
      const statusClass = optionalText(ctx, 'status-class')
        ?.split(',')
        .map((value) => value.trim());
      if (statusClass?.some((value) => !/^[2-5]xx$/.test(value))) throw new UsageError('--status-class takes 2xx, 3xx, 4xx or 5xx');
      const correlationId = optionalText(ctx, 'correlation-id');
      const items = await readRequestLog(ctx.db, requiredOption(ctx, 'company'), {
        limit,
        ...(statusClass ? { statusClass } : {}),
        ...(correlationId ? { correlationId } : {}),
      });
      await recordAudit(ctx.db, {
        actor: readerOf(ctx),
        action: 'request_log.read',
        companyId: requiredOption(ctx, 'company'),
        details: { filters: [...(statusClass ? ['statusClass'] : []), ...(correlationId ? ['correlationId'] : [])], lines: items.length },
      });
      return {
        json: { items },
        text: [
          `${items.length} line(s), newest first:`,
          ...items.map(
            (line) =>
              `${line.at}  ${line.status} ${line.method.padEnd(6)} ${line.path}${line.resourceId ? ` (${line.resourceId})` : ''}  ${line.error?.code ?? ''}  ${line.credential.name}  ${line.correlationId}`,
          ),
        ],
      };
    },
  },
];
