/** Prometheus metrics of webhook delivery attempts (src/observability/metrics.ts registers them). */
import { metrics } from '../observability/metrics';
import type { AttemptOutcome } from './delivery-http';

export function recordDeliveryMetrics(outcome: AttemptOutcome, occurredAt: Date): void {
  const result =
    outcome.status === undefined
      ? 'no_answer'
      : outcome.status >= 200 && outcome.status < 300
        ? 'succeeded'
        : `http_${Math.floor(outcome.status / 100)}xx`;
  metrics.webhookAttempts.inc({ result });
  metrics.webhookLatency.observe(outcome.latencyMs / 1000);
  if (result === 'succeeded') metrics.webhookLag.observe((Date.now() - occurredAt.getTime()) / 1000);
}
