/** Counts and times every answer of an API router, per document, operationId and status. */
import { metrics } from './metrics';

export type AnswerRecorder = (operationId: string | undefined, status: number, started: bigint) => void;

/** `api` is the document (openapi/partner.yaml): its file name is the label, read once. */
export function answerRecorder(api: string): AnswerRecorder {
  const apiLabel = api.replace(/^openapi\//, '').replace(/\.yaml$/, '');
  return (operationId, status, started) => {
    const labels = { api: apiLabel, operation: operationId ?? 'none', status: String(status) };
    metrics.requests.inc(labels);
    metrics.duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
  };
}
