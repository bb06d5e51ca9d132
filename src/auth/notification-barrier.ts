/**
 * "Has every revocation committed before now reached this process?" answered by one round trip on
 * the listening connection. PostgreSQL sends a listening session the notifications of every
 * transaction committed before a statement of that session finishes, ahead of the statement's
 * ReadyForQuery (the committing backend signals the listeners before its own client hears of the
 * COMMIT; a signalled session delivers what is queued before it next goes idle). So once a
 * `SELECT 1` sent after a request arrived is answered, every revocation that the request could
 * know about has been applied to the cache.
 *
 * Round trips are shared: callers that arrive while one is in flight wait for the next one (the one
 * in flight was sent before they arrived, and proves nothing for them), and all of them share that
 * next one. However many requests a process serves, its listening connection carries at most one
 * round trip in flight and one waiting.
 */
export class NotificationBarrier {
  private inFlight: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  constructor(private readonly roundTrip: () => Promise<void>) {}

  /** Resolves once a round trip sent after this call has been answered; rejects if it failed. */
  passed(): Promise<void> {
    if (this.queued) return this.queued;
    if (!this.inFlight) return this.send();
    const queued = this.inFlight.then(
      () => this.sendQueued(),
      () => this.sendQueued(),
    );
    this.queued = queued;
    return queued;
  }

  private sendQueued(): Promise<void> {
    this.queued = undefined;
    return this.send();
  }

  private send(): Promise<void> {
    const trip: Promise<void> = this.roundTrip().finally(() => {
      if (this.inFlight === trip) this.inFlight = undefined;
    });
    this.inFlight = trip;
    return trip;
  }
}
