/**
 * The jobs time drives in a guarantee's life, as the starter of the scheduler hands them to it
 * (src/runtime/serve.ts) and as time travel replays them (time-travel.ts): the time-driven
 * transitions in every environment, then the sandbox reviewer's only when ENVIRONMENT=sandbox.
 *
 * In the sandbox a guarantee whose clock a partner advanced (time-travel.ts) is due on its own
 * clock, the wall clock plus its `clock_offset_ms`: the scheduler takes its next step when its time
 * comes, not the wall clock's. Production has no such guarantee, and its queries stay as they are.
 */
import { Prisma } from '../generated/prisma/client';
import type { Config } from '../config';
import type { ScheduledJob } from '../scheduler/job';
import { timeDrivenJobs } from '../guarantees/transitions/time-driven';
import { sandboxJobs } from './sandbox-jobs';

/** The steps time drives in a guarantee's life: time-driven transitions, then (sandbox only) the sandbox reviewer's. */
export function lifecycleJobs(config: Config): ScheduledJob[] {
  return [...timeDrivenJobs(config), ...(config.ENVIRONMENT === 'sandbox' ? sandboxJobs(config) : [])];
}

/**
 * The jobs of one scheduler run, in order: the lifecycle jobs on the wall clock, then (sandbox only)
 * each of them again for the time-travelled guarantees, on their own clocks. Separate jobs rather
 * than an OR in each condition, so that the wall-clock queries keep their plans (an ordered index scan).
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
