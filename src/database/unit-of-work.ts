/**
 * A write's unit of work: the database handle its statements run on (its transaction) and the rows
 * it appends and never reads back (history entries, events), held in memory until whoever opened
 * the unit flushes it. The pipeline flushes a write's unit in the write's last statement, with its
 * idempotency record (src/http/idempotent-write.ts): a write costs one round trip per appended
 * table fewer, and the rows commit or roll back with the write. The scheduler and the admin tool
 * open theirs with `inUnitOfWork`, which flushes before COMMIT.
 *
 * HELD ROWS ARE INVISIBLE TO READS: no statement of the same transaction sees them until the unit is
 * flushed. A row that must be read back (a staff comment, whose entry the answer shows with the
 * time PostgreSQL gives it; a webhook's test event, whose delivery is read back) is written at
 * once by its table's own statement, after a `flush` of what the unit holds, so rows keep the
 * order in which they were made.
 *
 * An appended table is one `AppendedTable` declared beside its rows (guarantees/history.ts,
 * events/outbox.ts): the unit and its flush need nothing else.
 */
import { Prisma } from '../generated/prisma/client';
import type { Database, Queryable } from './prisma-client';

/** A table whose rows a unit of work may hold: how a batch of them is inserted, in their order. */
export interface AppendedTable<Row> {
  /** Named in errors. */
  name: string;
  /** The CTEs that insert `rows` in their order; their names are this table's own (one statement holds every table's). */
  insertCtes(rows: Row[]): Prisma.Sql;
}

export class UnitOfWork {
  private readonly held = new Map<AppendedTable<never>, unknown[]>();

  /**
   * @param db the write's transaction (or, for a unit that only reads, any handle)
   * @param holds false for a read's unit: holding a row there is a programming error (nobody flushes it)
   */
  private constructor(
    readonly db: Queryable,
    private readonly holds: boolean,
  ) {}

  /** The unit of a write's transaction `tx`; whoever makes it flushes it before COMMIT. */
  static of(tx: Queryable): UnitOfWork {
    return new UnitOfWork(tx, true);
  }

  /** The unit of a request that writes nothing (a read, a check before a write's transaction). */
  static readOnly(db: Queryable): UnitOfWork {
    return new UnitOfWork(db, false);
  }

  /** Holds `row` until the flush: no read of this transaction will see it. */
  hold<Row>(table: AppendedTable<Row>, row: Row): void {
    if (!this.holds) throw new Error(`A read-only unit of work cannot append to ${table.name}`);
    const rows = this.held.get(table as AppendedTable<never>);
    if (rows) rows.push(row);
    else this.held.set(table as AppendedTable<never>, [row]);
  }

  /** The CTEs that write every held row (tables in the order of their first row), no longer held: for the caller's last statement. */
  takeHeldCtes(): Prisma.Sql[] {
    const ctes = [...this.held].map(([table, rows]) => table.insertCtes(rows as never[]));
    this.held.clear();
    return ctes;
  }

  /** Writes every held row in one statement (none when nothing is held). */
  async flush(): Promise<void> {
    const ctes = this.takeHeldCtes();
    if (ctes.length > 0) await this.db.$executeRaw`WITH ${Prisma.join(ctes)} SELECT 1`;
  }
}

/** Runs `work` in a transaction of its own with a unit of work, flushed before COMMIT (the scheduler's and the admin tool's writes). */
export async function inUnitOfWork<T>(db: Database, work: (unit: UnitOfWork) => Promise<T>): Promise<T> {
  return db.$transaction(async (tx) => {
    const unit = UnitOfWork.of(tx);
    const result = await work(unit);
    await unit.flush();
    return result;
  });
}
