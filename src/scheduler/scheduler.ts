/**
 * The scheduler: every SCHEDULER_INTERVAL_MS each service process runs every job it was given once
 * (see job.ts for why several processes may do so on one database at the same time). Which jobs
 * run is its starter's choice (src/sandbox/lifecycle-jobs.ts: the time-driven transitions in every
 * environment, the sandbox reviewer's only in the sandbox): the runner knows none of them.
 * Purging stored idempotent responses stays in housekeeping.ts.
 */
import type { Config } from '../config';
import { databaseFailed } from '../database/outage-log';
import type { Database } from '../database/prisma-client';
import { createLogger, type Logger } from '../logger';
import { metrics } from '../observability/metrics';
import { inRootSpan } from '../tracing/tracing';
import { runJob, type JobResult, type ScheduledJob } from './job';

export type RunSummary = Record<string, JobResult>;

const fallbackLoggers = new Map<string, Logger>();
function fallbackLogger(level: string): Logger {
  let logger = fallbackLoggers.get(level);
  if (!logger) fallbackLoggers.set(level, (logger = createLogger(level)));
  return logger;
}

/**
 * One run of every job of `jobs`, in order, as of `now` (tests move time with it). Never throws: a
 * guarantee whose step fails is recorded and retried after a growing delay (step-failures.ts), left
 * out of the runs until then.
 */
export async function runSchedulerOnce(
  db: Database,
  config: Config,
  jobs: readonly ScheduledJob[],
  now: Date = new Date(),
  options: { logger?: Logger; stopping?: () => boolean } = {},
): Promise<RunSummary> {
  const logger = options.logger ?? fallbackLogger(config.LOG_LEVEL);
  const summary: RunSummary = {};
  for (const job of jobs) {
    if (options.stopping?.()) break;
    summary[job.name] = await runJob(db, job, {
      now,
      batchSize: config.SCHEDULER_BATCH_SIZE,
      logger,
      retry: { baseSeconds: config.SCHEDULER_RETRY_BASE_SECONDS, maxSeconds: config.SCHEDULER_RETRY_MAX_SECONDS },
      stopping: options.stopping,
    });
  }
  return summary;
}

export interface RunningScheduler {
  /** Stops scheduling and resolves once the run in progress has finished the guarantee it was changing. */
  stop(): Promise<void>;
}

/** Runs `jobs` now and then SCHEDULER_INTERVAL_MS after the end of each run (runs never overlap). */
export function startScheduler(db: Database, config: Config, logger: Logger, jobs: readonly ScheduledJob[]): RunningScheduler {
  if (config.SCHEDULER_INTERVAL_MS === 0) {
    logger.info('scheduler disabled in this process (SCHEDULER_INTERVAL_MS=0)');
    return { stop: async () => undefined };
  }
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const tick = () => {
    timer = undefined;
    // Each run is a trace of its own (its transitions' statements beneath it).
    running = inRootSpan('scheduler.run', () => runSchedulerOnce(db, config, jobs, new Date(), { logger, stopping: () => stopped }))
      .then((summary) => {
        metrics.schedulerRuns.inc();
        logger.debug({ summary }, 'scheduler run done');
      })
      .catch((error: unknown) => {
        if (!databaseFailed(error)) logger.error({ err: error }, 'scheduler run failed; will retry');
      })
      .finally(() => {
        running = undefined;
        if (!stopped) {
          timer = setTimeout(tick, config.SCHEDULER_INTERVAL_MS);
          timer.unref();
        }
      });
  };
  timer = setTimeout(tick, 0);
  timer.unref();
  logger.info({ intervalMs: config.SCHEDULER_INTERVAL_MS, jobs: jobs.length }, 'scheduler started');
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
