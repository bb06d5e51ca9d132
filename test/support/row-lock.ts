/**
 * Keeps writes of a service process in flight for as long as a test needs: the test takes a lock in
 * a transaction of its own (a guarantee's row, or what every write's last statement needs), and
 * the writes wait for it, each holding its pooled connection, until the test releases it.
 */
import type { Database, Transaction } from '../../src/database/prisma-client';
import { waitFor } from './wait-for';

/** A test's world, or any client of the database the service uses. */
interface On {
  db: Database;
}

export interface HeldLock {
  release(): void;
  /** The test's transaction, ended once released. */
  done: Promise<void>;
}

/** Locks the row of guarantee `id`; resolves once the lock is held. Writes to that guarantee wait. */
export function holdGuaranteeRow(t: On, id: number): Promise<HeldLock> {
  return hold(t, (tx) => tx.$queryRaw`SELECT id FROM rental_insurances WHERE id = ${BigInt(id)} FOR UPDATE`);
}

/**
 * Every idempotent write (every POST, PATCH and DELETE) ends with one statement that also counts
 * it in idempotency_usage: a lock that refuses inserts there holds them all just before they commit.
 * Reads of the table (the key's claim) still pass.
 */
export function holdEveryWrite(t: On): Promise<HeldLock> {
  return hold(t, (tx) => tx.$executeRaw`LOCK TABLE idempotency_usage IN EXCLUSIVE MODE`);
}

async function hold(t: On, take: (tx: Transaction) => Promise<unknown>): Promise<HeldLock> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const done = t.db.$transaction(
    async (tx) => {
      await take(tx);
      locked();
      await released;
    },
    { timeout: 60_000 },
  );
  await Promise.race([isLocked, done]);
  return { release, done };
}

/** Waits until `count` statements of the test's database wait for a lock (the writes reached the held lock). */
export async function waitForLockWaiters(t: On, count: number): Promise<void> {
  const waiting = async () =>
    (
      await t.db.$queryRaw<Array<{ n: number }>>`
        SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`
    )[0]!.n;
  const reached = await waitFor(waiting, (n) => n >= count, { withinMs: 20_000 });
  if (reached < count) throw new Error(`only ${reached} of ${count} writes reached the lock`);
}
