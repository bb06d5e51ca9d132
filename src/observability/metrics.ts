/**
 * The service's metrics in Prometheus format (prom-client), in this process's default registry:
 * process defaults (CPU, memory, event loop, GC) plus the series below. Served on a port of their
 * own (metrics-server.ts), never through a partner's address; in cluster mode the primary
 * aggregates its workers' registries.
 */
import client from 'prom-client';

client.collectDefaultMetrics();

/** The process's answer budget (http/answer-budget.ts), read when the metrics are scraped. */
export const answerBudgetReadings: { state?: () => { inFlight: number; waiting: number } } = {};

const DURATION_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const metrics = {
  requests: new client.Counter({
    name: 'http_requests_total',
    help: 'Requests answered, per API document, operationId (none: no operation matched) and status.',
    labelNames: ['api', 'operation', 'status'] as const,
  }),
  duration: new client.Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the request reaching the API router to its answer, per API, operationId and status.',
    labelNames: ['api', 'operation', 'status'] as const,
    buckets: DURATION_BUCKETS,
  }),
  idempotency: new client.Counter({
    name: 'idempotency_outcomes_total',
    help: 'Idempotent writes by outcome: executed, replayed, key_in_use (409), key_reused (400).',
    labelNames: ['outcome'] as const,
  }),
  rateLimited: new client.Counter({
    name: 'rate_limit_rejections_total',
    help: 'Requests refused by a limit: quota, agency_quota, anonymous (429 rate_limited), search_concurrency, agency_search_concurrency (429), search_capacity (503), answer_budget (503: no room for its answer in time).',
    labelNames: ['reason'] as const,
  }),
  answerBytesInFlight: new client.Gauge({
    name: 'answer_bytes_in_flight',
    help: 'Worst-case bytes of the answers this process is making or writing now (at most ANSWER_BYTES_IN_FLIGHT).',
    collect() {
      this.set(answerBudgetReadings.state?.().inFlight ?? 0);
    },
  }),
  answersWaiting: new client.Gauge({
    name: 'answers_waiting',
    help: 'Requests waiting for room in the answer budget (ANSWER_BYTES_IN_FLIGHT, ANSWER_BYTES_PER_AGENCY).',
    collect() {
      this.set(answerBudgetReadings.state?.().waiting ?? 0);
    },
  }),
  schedulerTransitions: new client.Counter({
    name: 'scheduler_transitions_total',
    help: 'Guarantees the scheduler changed (applied) or failed to change, per job.',
    labelNames: ['job', 'outcome'] as const,
  }),
  requestLogDropped: new client.Counter({
    name: 'request_log_lines_dropped_total',
    help: 'Request log lines not written: buffer_full (the write-behind buffer was full) or write_failed (their batch failed).',
    labelNames: ['reason'] as const,
  }),
  schedulerRuns: new client.Counter({ name: 'scheduler_runs_total', help: 'Scheduler runs finished by this process.' }),
  publishedPageBuilds: new client.Counter({
    name: 'published_page_builds_total',
    help: 'Published pages (the partner document as json or yaml, the reference page as html) built and compressed by this process, per kind: once per origin.',
    labelNames: ['kind'] as const,
  }),
  tokens: new client.Counter({
    name: 'token_requests_total',
    help: 'Token endpoint answers by outcome: issued, or the OAuth error code.',
    labelNames: ['outcome'] as const,
  }),
  secretVerifications: new client.Counter({
    name: 'secret_verifications_total',
    help: 'Client secrets verified with scrypt: a known client ID against its stored hashes, an unknown or revoked one against a dummy hash (the same work).',
  }),
  webhookAttempts: new client.Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts by result: succeeded (2xx), http_3xx/4xx/5xx, no_answer (timeout, refused connection or address).',
    labelNames: ['result'] as const,
  }),
  webhookLatency: new client.Histogram({
    name: 'webhook_delivery_attempt_seconds',
    help: 'Duration of webhook delivery attempts, until the answer (or the error).',
    buckets: DURATION_BUCKETS,
  }),
  webhookLag: new client.Histogram({
    name: 'webhook_delivery_lag_seconds',
    help: 'Time from an event (its occurredAt) to its first successful delivery to an endpoint.',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60, 600, 3600, 86400],
  }),
  poolWaitTimeouts: new client.Counter({
    name: 'database_pool_wait_timeouts_total',
    help: 'Requests answered 503 because no database connection became free within DATABASE_POOL_WAIT_MS.',
  }),
};

export interface PoolStatistics {
  total: number;
  idle: number;
  waiting: number;
}

/** Gauges of a database pool (connections open, idle, in use, and requests waiting for one). */
export function observePool(stats: () => PoolStatistics): void {
  new client.Gauge({
    name: 'database_pool_connections',
    help: 'Connections of the database pool: open, idle, in use, and requests waiting for one.',
    labelNames: ['state'] as const,
    collect() {
      const { total, idle, waiting } = stats();
      this.set({ state: 'open' }, total);
      this.set({ state: 'idle' }, idle);
      this.set({ state: 'in_use' }, total - idle);
      this.set({ state: 'waiting' }, waiting);
    },
  });
}

export const metricsRegistry = client.register;
