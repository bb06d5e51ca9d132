/**
 * A write's unit of work: the database handle its statements run on (its transaction) and the rows
 * it appends and never reads back (history entries, events), kept in memory until the unit writes
 * them. The unit writes them itself, in the statement that ends the write (`finish`): the pipeline
 * hands it the idempotency record to write beside them (src/http/idempotency-store.ts), so a write
 * costs one round trip per appended table fewer, and the rows commit or roll back with the write.
 * The scheduler and the admin tool open theirs with `inUnitOfWork`, which writes them before COMMIT.
 *
 * APPENDED ROWS ARE INVISIBLE TO READS: no statement of the same transaction sees them until the
 * unit writes them. A row that must be read back (a staff comment, whose entry the answer shows
 * with the time PostgreSQL gives it; a webhook's test event, whose delivery is read back) is
 * written at once with `writeNow`, after what the unit already holds, so rows keep the order in
 * which they were made.
 *
 * An appended table is one `AppendedTable` declared beside its rows (guarantees/history.ts,
 * events/outbox.ts): SQL text, not code, so the unit writes a table's rows without calling back
 * into the module that appended them.
 */
import { Prisma } from '../generated/prisma/client';
import { traceContext } from '../tracing/tracing';
import type { Database, Queryable } from './prisma-client';

/**
 * A table whose rows a unit of work may append: the CTEs that insert a JSON array of rows, in their
 * order, written around it (`before`, the array as one `jsonb` parameter, `after`). The CTEs' names
 * are the table's own: one statement holds every table's. They may read the CTE `unit_trace`
 * (column `carrier`: the trace context active when the unit writes, or `{}`), which every
 * statement of the unit that writes rows holds.
 */
export interface AppendedTable {
  /** Named in errors. */
  name: string;
  before: Prisma.Sql;
  after: Prisma.Sql;
}

/** The CTEs that insert `rows` (plain JSON values; bigints as text) into `table`, in their order. */
function appendedRowsCte(table: AppendedTable, rows: readonly object[]): Prisma.Sql {
  const json = JSON.stringify(rows, (_, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
  return Prisma.sql`${table.before}${json}::jsonb${table.after}`;
}

/** The CTE `unit_trace`: the trace context active as the unit writes (a delivery job continues it). */
function traceCte(): Prisma.Sql {
  return Prisma.sql`unit_trace AS (SELECT ${JSON.stringify(traceContext() ?? {})}::jsonb AS carrier)`;
}

export class UnitOfWork {
  private readonly appended = new Map<AppendedTable, object[]>();

  /**
   * @param db the write's transaction (or, for a unit that only reads, any handle)
   * @param writes false for a read's unit: appending a row there is a programming error (nobody would write it)
   */
  private constructor(
    readonly db: Queryable,
    private readonly writes: boolean,
  ) {}

  /** The unit of a write's transaction `tx`; whoever makes it finishes it before COMMIT. */
  static of(tx: Queryable): UnitOfWork {
    return new UnitOfWork(tx, true);
  }

  /** The unit of a request that writes nothing (a read, a check before a write's transaction). */
  static readOnly(db: Queryable): UnitOfWork {
    return new UnitOfWork(db, false);
  }

  /** Appends `row` to `table`, written by the unit's last statement: no read of this transaction will see it. */
  append(table: AppendedTable, row: object): void {
    if (!this.writes) throw new Error(`A read-only unit of work cannot append to ${table.name}`);
    const rows = this.appended.get(table);
    if (rows) rows.push(row);
    else this.appended.set(table, [row]);
  }

  /**
   * Writes `row` into `table` at once, after every row appended so far (written first), and answers
   * `select` over the table's CTEs (to read back the row PostgreSQL made).
   */
  async writeNow<Result>(table: AppendedTable, row: object, select: Prisma.Sql): Promise<Result[]> {
    await this.flush();
    return this.db.$queryRaw<Result[]>`WITH ${traceCte()}, ${appendedRowsCte(table, [row])} ${select}`;
  }

  /** Writes every appended row now, in one statement (none when nothing is appended). */
  async flush(): Promise<void> {
    const ctes = this.takeAppended();
    if (ctes.length > 0) await this.db.$executeRaw`WITH ${Prisma.join(ctes)} SELECT 1`;
  }

  /**
   * The statement that ends the write: the caller's own CTEs `first` (the idempotency record: first
   * in the text, where pg_stat_activity shows it), then every row the unit appended; answers
   * `select` over them.
   */
  async finish<Result>(first: Prisma.Sql[], select: Prisma.Sql): Promise<Result[]> {
    return this.db.$queryRaw<Result[]>`WITH ${Prisma.join([...first, ...this.takeAppended()])} ${select}`;
  }

  /** The CTEs of every appended row (tables in the order of their first row), no longer held; none when there is none. */
  private takeAppended(): Prisma.Sql[] {
    if (this.appended.size === 0) return [];
    const ctes = [traceCte(), ...[...this.appended].map(([table, rows]) => appendedRowsCte(table, rows))];
    this.appended.clear();
    return ctes;
  }
}

/** Runs `work` in a transaction of its own with a unit of work, written before COMMIT (the scheduler's and the admin tool's writes). */
export async function inUnitOfWork<T>(db: Database, work: (unit: UnitOfWork) => Promise<T>): Promise<T> {
  return db.$transaction(async (tx) => {
    const unit = UnitOfWork.of(tx);
    const result = await work(unit);
    await unit.flush();
    return result;
  });
}
