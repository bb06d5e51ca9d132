/**
 * Reads that may use the streaming replica (DATABASE_REPLICA_URL), decided per operation
 * (`replicaRead` in its definition: lists and name searches with their counts, the financial
 * balance, daily summaries and statement entries), with no staleness a partner can see:
 *
 * - A read goes to the replica only once the replica has replayed every write committed before the
 *   read began: the primary's WAL position is read first (`pg_current_wal_lsn()`, no table), then
 *   the replica's replay position is compared with it. So a partner reads its own writes, and
 *   every other write (staff, scheduler, another host) that committed before its request.
 * - A replica behind that position is given DATABASE_REPLICA_MAX_LAG_MS to catch up (polled); past
 *   it, the read goes to the primary. 0: never wait.
 * - A replica that fails (down, restarting, unreachable) is left alone for a few seconds: its reads
 *   go to the primary meanwhile, and the read that met the failure is run again there. Nothing is
 *   answered 503 for the replica alone.
 *
 * The cost: two trivial statements per such read (one on each server), which buys moving the read's
 * own work (a page of a list and its count, a summary over days) off the primary.
 */
import type { Logger } from '../logger';
import type { Database, Queryable } from './prisma-client';
import { isDatabaseUnavailable } from './unavailable';

const POLL_MS = 2;
const REST_AFTER_FAILURE_MS = 3_000;

export type ReadTarget = 'replica' | 'primary';

export class ReplicaReads {
  private restingUntil = 0;
  /** Reads served by each server since start (the tests and metrics read them). */
  readonly served: Record<ReadTarget, number> = { replica: 0, primary: 0 };

  constructor(
    private readonly primary: Database,
    private readonly replica: Database,
    private readonly maxLagMs: number,
    private readonly logger?: Logger,
  ) {}

  /** Runs `read` on the replica when it is current, else on the primary. */
  async run<T>(read: (db: Queryable) => Promise<T>): Promise<T> {
    if (Date.now() >= this.restingUntil && (await this.replicaIsCurrent())) {
      try {
        const result = await read(this.replica);
        this.served.replica += 1;
        return result;
      } catch (error) {
        if (!isDatabaseUnavailable(error)) throw error;
        this.rest(error);
      }
    }
    this.served.primary += 1;
    return read(this.primary);
  }

  private async replicaIsCurrent(): Promise<boolean> {
    const [{ lsn }] = await this.primary.$queryRaw<Array<{ lsn: string }>>`SELECT pg_current_wal_lsn()::text AS lsn`;
    const deadline = Date.now() + this.maxLagMs;
    try {
      for (;;) {
        const [{ current }] = await this.replica.$queryRaw<Array<{ current: boolean | null }>>`
          SELECT pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn AS current`;
        // null: the server is no standby (replay position unknown); never trusted.
        if (current === true) return true;
        if (current === null || Date.now() >= deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      this.rest(error);
      return false;
    }
  }

  private rest(error: unknown): void {
    if (Date.now() >= this.restingUntil)
      this.logger?.warn({ cause: (error as Error).message?.split('\n').at(-1) }, 'replica unavailable: its reads go to the primary');
    this.restingUntil = Date.now() + REST_AFTER_FAILURE_MS;
  }
}
