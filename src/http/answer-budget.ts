/**
 * The answers a process makes at once, bounded in bytes (issue 34): a request is admitted only
 * while the worst cases of the answers in flight in this process (contract/answer-cost.ts: known
 * from the contract before anything is read) fit ANSWER_BYTES_IN_FLIGHT, and those of one agency
 * fit ANSWER_BYTES_PER_AGENCY; its share is given back when its answer has been written, or its
 * connection closed. A request that does not fit waits its turn, first come first served, at most
 * DATABASE_POOL_WAIT_MS; past it, `503 service_unavailable` with `Retry-After`, nothing applied.
 *
 * The turn order: waiters are admitted in arrival order; one whose agency holds its whole share
 * waits without holding up other agencies' requests behind it (one agency's large reads never
 * stall another's), while one that waits for room in the process's budget does (a large read is
 * not passed over forever by small ones). A request costing more than the share (possible only
 * with a share set below the largest answer) counts as the whole share: it runs when its agency
 * has nothing else in flight.
 *
 * Cheap on the common path: a request that fits while nobody waits is admitted at once, with two
 * additions and a map update; waiting, timers and cancellation exist only for the requests that wait.
 */
import { ApiError } from '../errors';
import { answerBudgetReadings, metrics } from '../observability/metrics';

export interface AnswerBudgetPolicy {
  /** Worst-case bytes of the answers this process makes at once. */
  bytes: number;
  /** Of which one agency (or the service's staff together) may hold at most this many. */
  perAgency: number;
  /** How long a request waits for room before it is answered 503. */
  waitMs: number;
}

/** Gives the admitted bytes back; calling it again does nothing. */
export type Release = () => void;

interface Waiter {
  key: string;
  weight: number;
  admit: (release: Release) => void;
}

export class AnswerBudget {
  private inFlight = 0;
  private readonly held = new Map<string, number>();
  private readonly queue: Waiter[] = [];

  constructor(readonly policy: AnswerBudgetPolicy) {
    answerBudgetReadings.state = () => this.state();
  }

  /** Worst-case bytes admitted now, and requests waiting (metrics, tests). */
  state(): { inFlight: number; waiting: number } {
    return { inFlight: this.inFlight, waiting: this.queue.length };
  }

  /**
   * Admits an answer of at most `bytes` for `key` (the caller's agency). Returns its release at once
   * when it fits and nobody waits, else a promise of it; `gone` (the response) cancels the wait when
   * its connection closes first.
   */
  admit(key: string, bytes: number, gone?: NodeJS.EventEmitter): Release | Promise<Release> {
    const weight = Math.min(bytes, this.policy.perAgency);
    if (this.queue.length === 0 && this.fits(key, weight)) return this.take(key, weight);
    return new Promise<Release>((resolve, reject) => {
      const timer = setTimeout(() => {
        leave();
        metrics.rateLimited.inc({ reason: 'answer_budget' });
        reject(
          new ApiError(503, 'service_unavailable', 'The service is busy writing large answers; retry shortly.', undefined, { 'Retry-After': '1' }),
        );
      }, this.policy.waitMs);
      timer.unref();
      const closed = () => {
        leave();
        reject(new ApiError(503, 'service_unavailable', 'The connection closed while the request waited.'));
      };
      const leave = () => {
        clearTimeout(timer);
        gone?.removeListener('close', closed);
        const index = this.queue.indexOf(waiter);
        if (index >= 0) this.queue.splice(index, 1);
        // A waiter that leaves may have held up others behind it.
        this.drain();
      };
      const waiter: Waiter = {
        key,
        weight,
        admit: (release) => {
          clearTimeout(timer);
          gone?.removeListener('close', closed);
          resolve(release);
        },
      };
      gone?.once('close', closed);
      this.queue.push(waiter);
      this.drain();
    });
  }

  private fits(key: string, weight: number): boolean {
    return this.inFlight + weight <= this.policy.bytes && (this.held.get(key) ?? 0) + weight <= this.policy.perAgency;
  }

  private take(key: string, weight: number): Release {
    this.inFlight += weight;
    this.held.set(key, (this.held.get(key) ?? 0) + weight);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight -= weight;
      const left = (this.held.get(key) ?? weight) - weight;
      if (left <= 0) this.held.delete(key);
      else this.held.set(key, left);
      if (this.queue.length > 0) this.drain();
    };
  }

  /** Admits the waiters that fit, in arrival order (see the turn order above). */
  private drain(): void {
    const full = new Set<string>();
    for (let index = 0; index < this.queue.length;) {
      const waiter = this.queue[index]!;
      if (full.has(waiter.key) || (this.held.get(waiter.key) ?? 0) + waiter.weight > this.policy.perAgency) {
        // Its agency holds its share: later requests of that agency wait behind it, others go on.
        full.add(waiter.key);
        index += 1;
        continue;
      }
      if (this.inFlight + waiter.weight > this.policy.bytes) return;
      this.queue.splice(index, 1);
      waiter.admit(this.take(waiter.key, waiter.weight));
    }
  }
}
