/**
 * The states of a recorded webhook attempt (issue 24 item 2). An attempt is recorded BEFORE its
 * request is sent, so every request a receiver may have seen has its row: `started` (outcome not
 * known yet), then `completed` with its outcome by the process that made it. A row never completed
 * (its process was killed, lost the database, or lost its claim on the job) is `interrupted`: the
 * delivery's next job marks it so (an attempt, or the delivery ending without one), and a listing shows it so once it is older
 * than any attempt can last. What a partner sees of each is declared in openapi/partner.yaml
 * (WebhookAttempt).
 */
export type AttemptState = 'started' | 'completed' | 'interrupted';

/** The `error` of an attempt whose request is being made (its row before completion). */
export const IN_PROGRESS_ERROR = 'in progress: the outcome of this attempt is not known yet';

/** The `error` of an attempt whose process stopped between its request and the recording of its outcome. */
export const INTERRUPTED_ERROR = 'interrupted: the outcome of this attempt is unknown (the delivering process stopped)';

/**
 * How long after its start an attempt may still be completed: well beyond the longest attempt
 * (WEBHOOK_TIMEOUT_MS is at most 60 s) and the job's own expiry (5 min, src/job-queue/delivery-queue.ts). A row
 * still `started` after it is interrupted, whether or not another attempt marked it.
 */
export const ATTEMPT_OUTCOME_BOUND_SECONDS = 600;

/**
 * The `error` a stored attempt reads with at `now`: a `started` row too old to be completed any more
 * reads as interrupted. (A row not completed keeps `responseStatus` null and `latencyMs` 0.)
 */
export function attemptError(attempt: { state: string; attemptedAt: Date; error: string | null }, now: Date): string | null {
  const stale = attempt.state === 'started' && now.getTime() - attempt.attemptedAt.getTime() > ATTEMPT_OUTCOME_BOUND_SECONDS * 1000;
  return attempt.state === 'interrupted' || stale ? INTERRUPTED_ERROR : attempt.error;
}
