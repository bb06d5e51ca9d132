/**
 * Graceful shutdown of a service process on SIGTERM (or SIGINT), within SHUTDOWN_GRACE_MS:
 *   1. readiness turns false at once (the lifecycle drains) and new connections are refused;
 *   2. idle keep-alive connections are closed, and every answer from now on carries
 *      `Connection: close` (app.ts), so busy connections close after their request;
 *   3. the scheduler stops between two guarantees, housekeeping stops;
 *   4. requests in flight finish; whatever is still open when the grace period ends is closed;
 *   5. the token cache's listener, the database pool and, last, the embedded PostgreSQL stop.
 * A second signal changes nothing; a stop that hangs past the grace period plus 5 s exits with 1.
 */
import type { Server } from 'node:http';
import type { Logger } from '../logger';
import type { Lifecycle } from '../health/lifecycle';

export interface StopSteps {
  /** Background work to stop before the connections close (scheduler, housekeeping). */
  background: Array<() => Promise<void> | void>;
  /** Resources to release once no request is left, in order (token cache, database, embedded server). */
  resources: Array<() => Promise<void>>;
}

export function stopGracefully(server: Server, lifecycle: Lifecycle, steps: StopSteps, graceMs: number, logger: Logger): Promise<void> {
  lifecycle.startDraining();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const deadline = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), graceMs).unref());
  return (async () => {
    await Promise.all(steps.background.map((stop) => stop()));
    if ((await Promise.race([closed, deadline])) === 'late') {
      logger.warn({ graceMs }, 'connections still open at the end of the grace period: closing them');
      server.closeAllConnections();
      await closed;
    }
    for (const release of steps.resources) await release();
  })();
}

/** Runs `stop` on the first SIGTERM or SIGINT, then exits: 0 when it finished in time, 1 otherwise. */
export function onTermination(stop: (signal: string) => Promise<void>, graceMs: number, logger: Logger): void {
  let stopping = false;
  const handle = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, graceMs }, 'stopping gracefully');
    setTimeout(() => {
      logger.error('graceful stop did not finish in time; exiting');
      process.exit(1);
    }, graceMs + 5_000).unref();
    stop(signal).then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'graceful stop failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => handle('SIGTERM'));
  process.on('SIGINT', () => handle('SIGINT'));
}
