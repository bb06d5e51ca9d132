/**
 * Keeps the request log bounded: lines older than 7 days are deleted, and so are an agency's lines
 * beyond its latest REQUEST_LOG_LINES_PER_AGENCY or beyond its latest REQUEST_LOG_BYTES_PER_AGENCY
 * bytes (each line records its size, request-log-insert.ts). Runs every minute in every service
 * process: plain deletes of rows past a bound, which several processes may run at once (the
 * second finds nothing left to delete), as housekeeping.ts does for other expired rows.
 *
 * Between two runs an agency may hold a minute of lines beyond its bounds; every answer stays a
 * page of at most 200 lines whatever the table holds.
 */
import { databaseFailed } from '../database/outage-log';
import type { Database } from '../database/prisma-client';
import type { Logger } from '../logger';
import { REQUEST_LOG_RETENTION_DAYS } from './request-log-reader';
import { inRootSpan } from '../tracing/tracing';

const EVERY_MS = 60_000;

/** What one agency keeps at most. */
export interface AgencyBounds {
  lines: number;
  bytes: number;
}

export async function pruneRequestLog(db: Database, bounds: AgencyBounds, now = new Date()): Promise<{ expired: number; beyondBound: number }> {
  const expired = await db.requestLogLine.deleteMany({ where: { at: { lt: new Date(now.getTime() - REQUEST_LOG_RETENTION_DAYS * 86_400_000) } } });
  // The agencies come from the (company_id, at, id, size_bytes) index, one step per agency (a loose
  // index scan), not from every line. Each agency's newest lines are then counted and summed from
  // the same index, newest first, until the first line past either bound: it and every older line go.
  const beyondBound = await db.$executeRaw`
    WITH RECURSIVE agencies(company_id) AS (
      (SELECT company_id FROM request_log ORDER BY company_id LIMIT 1)
      UNION ALL
      SELECT (SELECT r.company_id FROM request_log r WHERE r.company_id > a.company_id ORDER BY r.company_id LIMIT 1)
      FROM agencies a WHERE a.company_id IS NOT NULL
    ),
    bounds AS (
      SELECT a.company_id, first_dropped.at, first_dropped.id FROM agencies a
      CROSS JOIN LATERAL (
        SELECT newest.at, newest.id FROM (
          SELECT r.at, r.id, row_number() OVER newest_first AS lines, sum(r.size_bytes) OVER newest_first AS bytes
          FROM request_log r WHERE r.company_id = a.company_id
          WINDOW newest_first AS (ORDER BY r.at DESC, r.id DESC)
        ) newest
        WHERE newest.lines > ${bounds.lines} OR newest.bytes > ${bounds.bytes}
        ORDER BY newest.at DESC, newest.id DESC LIMIT 1
      ) first_dropped
      WHERE a.company_id IS NOT NULL
    )
    DELETE FROM request_log r USING bounds b
    WHERE r.company_id = b.company_id AND (r.at, r.id) <= (b.at, b.id)`;
  return { expired: expired.count, beyondBound };
}

export function startRequestLogPruning(db: Database, bounds: AgencyBounds, logger: Logger): { stop(): void } {
  const run = () =>
    inRootSpan('request_log.pruning', () => pruneRequestLog(db, bounds))
      .then((pruned) => logger.debug({ pruned }, 'request log pruned'))
      .catch((error: unknown) => {
        if (!databaseFailed(error)) logger.warn({ err: error }, 'request log pruning failed; will retry');
      });
  const timer = setInterval(run, EVERY_MS);
  timer.unref();
  void run();
  return { stop: () => clearInterval(timer) };
}
