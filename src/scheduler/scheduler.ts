/**
 * The scheduler: every SCHEDULER_INTERVAL_MS each service process runs every job once (see job.ts
 * for why several processes may do so on one database at the same time). The time-driven
 * transitions run in every environment; the sandbox reviewer's jobs only when ENVIRONMENT=sandbox.
 * Purging stored idempotent responses stays in housekeeping.ts.
 *
 * In the sandbox a guarantee whose clock a partner advanced (src/sandbox/time-travel.ts) is due on
 * its own clock, the wall clock plus its `clock_offset_ms`: the scheduler takes its next step when
 * its time comes, not the wall clock's. Production has no such guarantee, and its queries stay as they are.
 */
import { Prisma } from '../generated/prisma/client';
import type { Config } from '../config';
import { databaseFailed } from '../database/outage-log';
import type { Database } from '../database/prisma-client';
import { createLogger, type Logger } from '../logger';
import { metrics } from '../observability/metrics';
import { sandboxJobs } from '../sandbox/sandbox-jobs';
import { runJob, type JobResult, type ScheduledJob } from './job';
import { timeDrivenJobs } from './time-driven-jobs';

export type RunSummary = Record<string, JobResult>;

/** The steps time drives in a guarantee's life: time-driven transitions, then (sandbox only) the sandbox reviewer's. */
export function lifecycleJobs(config: Config): ScheduledJob[] {
  return [...timeDrivenJobs(config), ...(config.ENVIRONMENT === 'sandbox' ? sandboxJobs(config) : [])];
}

/**
 * The jobs of one run, in order: the lifecycle jobs on the wall clock, then (sandbox only) each of
 * them again for the time-travelled guarantees, on their own clocks. Separate jobs rather than an
 * OR in each condition, so that the wall-clock queries keep their plans (an ordered index scan).
 */
export function scheduledJobs(config: Config): ScheduledJob[] {
  const jobs = lifecycleJobs(config);
  return config.ENVIRONMENT === 'sandbox' ? [...jobs, ...jobs.map(onOwnClock)] : jobs;
}

/** The job for the time-travelled guarantees, due on their own clock (few: a partial index finds them). */
function onOwnClock(job: ScheduledJob): ScheduledJob {
  return {
    ...job,
    name: `${job.name}_on_own_clock`,
    eligible: (now) => Prisma.sql`r.clock_offset_ms <> 0 AND ${job.dueAt} <= ${now}::timestamptz + r.clock_offset_ms * interval '1 millisecond'`,
    order: Prisma.sql`r.id`,
  };
}

const fallbackLoggers = new Map<string, Logger>();
function fallbackLogger(level: string): Logger {
  let logger = fallbackLoggers.get(level);
  if (!logger) fallbackLoggers.set(level, (logger = createLogger(level)));
  return logger;
}

/**
 * One run of every job, as of `now` (tests move time with it). Never throws: a guarantee whose step
 * fails is recorded and retried after a growing delay (step-failures.ts), left out of the runs until then.
 */
export async function runSchedulerOnce(
  db: Database,
  config: Config,
  now: Date = new Date(),
  options: { logger?: Logger; stopping?: () => boolean } = {},
): Promise<RunSummary> {
  const logger = options.logger ?? fallbackLogger(config.LOG_LEVEL);
  const summary: RunSummary = {};
  for (const job of scheduledJobs(config)) {
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

/** Runs the scheduler now and then SCHEDULER_INTERVAL_MS after the end of each run (runs never overlap). */
export function startScheduler(db: Database, config: Config, logger: Logger): RunningScheduler {
  if (config.SCHEDULER_INTERVAL_MS === 0) {
    logger.info('scheduler disabled in this process (SCHEDULER_INTERVAL_MS=0)');
    return { stop: async () => undefined };
  }
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const tick = () => {
    timer = undefined;
    running = runSchedulerOnce(db, config, new Date(), { logger, stopping: () => stopped })
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
  logger.info({ intervalMs: config.SCHEDULER_INTERVAL_MS, sandboxReviewer: config.ENVIRONMENT === 'sandbox' }, 'scheduler started');
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
