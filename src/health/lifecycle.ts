/**
 * The process's lifecycle as every part that must react to it sees it: serving, then draining
 * after SIGTERM (readiness false, `Connection: close` on every answer, no new work), then stopped.
 */
export class Lifecycle {
  private drainingSince: number | undefined;
  private readonly drainListeners = new Set<() => void>();

  get draining(): boolean {
    return this.drainingSince !== undefined;
  }

  /** Idempotent: a second signal changes nothing. */
  startDraining(): void {
    if (this.drainingSince !== undefined) return;
    this.drainingSince = Date.now();
    for (const listener of this.drainListeners) listener();
    this.drainListeners.clear();
  }

  /** Calls `listener` when draining starts (requests already in flight react then); returns its removal. */
  onDrain(listener: () => void): () => void {
    this.drainListeners.add(listener);
    return () => this.drainListeners.delete(listener);
  }
}
