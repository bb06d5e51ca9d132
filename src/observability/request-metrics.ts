/** Counts and times every answer of an API router, per document, operationId and status. */
import { metrics } from './metrics';

/** `api` is the document (openapi/partner.yaml): its file name is the label. */
export function recordAnswer(api: string, operationId: string | undefined, status: number, started: bigint): void {
  const labels = { api: api.replace(/^openapi\//, '').replace(/\.yaml$/, ''), operation: operationId ?? 'none', status: String(status) };
  metrics.requests.inc(labels);
  metrics.duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
}
