/**
 * Runs the tasks of one key one at a time, in arrival order; tasks of different keys run freely.
 * The token endpoint queues secret verifications per source address here, in front of the
 * process-wide scrypt limit (opaque-secrets.ts): a flood from one address then holds at most one
 * of that limit's places, so a request from any other address waits for at most one verification
 * ahead of it, and each queued request of the flood sees the lockout that the failures ahead of it
 * caused before it reaches scrypt.
 */
export class KeyedQueue {
  /** The promise that settles when the last task queued for the key is done. Absent: the key is idle. */
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key);
    let done!: () => void;
    const tail = new Promise<void>((resolve) => (done = resolve));
    this.tails.set(key, tail);
    try {
      if (previous) await previous;
      return await task();
    } finally {
      done();
      // The last task of the key forgets it, so that idle addresses hold no memory.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Keys with a task running or waiting (for tests and diagnostics). */
  get size(): number {
    return this.tails.size;
  }
}
