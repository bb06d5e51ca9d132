/**
 * Rows a write appends and never reads back (history entries, events) are held in memory while
 * its transaction runs and written by the transaction's last statement, with its idempotency
 * record (src/http/idempotent-write.ts): a write costs one round trip per kind fewer, and the rows
 * commit or roll back with the write as before. Only the pipeline's write transactions hold
 * appends; everywhere else (scheduler, admin tool) `recordHistory` and `emitEvent` write at once.
 *
 * An append that must be written at once inside a holding transaction (a staff comment, whose entry
 * the answer shows with its time) first writes whatever is held, so rows keep the order in which
 * they were made. A partner's comment knows its time beforehand and is held like the others.
 */
import type { Queryable } from './prisma-client';

export interface HeldHistoryEntry {
  rentalInsuranceId: bigint;
  kind: string;
  creatorName: string;
  creatorServiceAccount: boolean;
  comment: string | null;
  previousStatus: string | null;
  status: string;
  /** Set when the write answers with the entry before it is written (a comment); else the column's default. */
  createdAt?: Date;
}

export interface HeldEvent {
  id: string;
  companyId: string;
  type: string;
  data: unknown;
}

export interface HeldAppends {
  history: HeldHistoryEntry[];
  events: HeldEvent[];
}

const held = new WeakMap<Queryable, HeldAppends>();

/** From now on, `db` (a write's transaction) holds its appends until its last statement writes them. */
export function holdAppends(db: Queryable): void {
  held.set(db, { history: [], events: [] });
}

/** The appends `db` holds (a caller that writes them empties the list: `splice(0)`), or undefined when it writes them at once. */
export function heldAppends(db: Queryable): HeldAppends | undefined {
  return held.get(db);
}
