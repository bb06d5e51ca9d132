/**
 * Keeps writes of a service process in flight for as long as a test needs: the test locks a
 * guarantee's row in a transaction of its own, and every write to that guarantee waits for the lock
 * (holding its pooled connection) until the test releases it.
 */
import type { TestApp } from './test-app';

export interface HeldRow {
  release(): void;
  /** The test's transaction, ended once released. */
  done: Promise<void>;
}

/** Locks the row of guarantee `id`; resolves once the lock is held. */
export async function holdGuaranteeRow(t: TestApp, id: number): Promise<HeldRow> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const done = t.db.$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT id FROM rental_insurances WHERE id = ${BigInt(id)} FOR UPDATE`;
      locked();
      await released;
    },
    { timeout: 60_000 },
  );
  await Promise.race([isLocked, done]);
  return { release, done };
}

/** Waits until `count` statements of the test's database wait for a lock (the writes reached the held row). */
export async function waitForLockWaiters(t: TestApp, count: number): Promise<void> {
  for (let waited = 0; ; waited += 50) {
    const [row] = await t.db.$queryRaw<Array<{ n: number }>>`
      SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`;
    if (row!.n >= count) return;
    if (waited > 20_000) throw new Error(`only ${row!.n} of ${count} writes reached the lock`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
