/**
 * Which requests are traced, decided as a request arrives, when OTEL_TRACES_SAMPLER is one of the
 * ratio samplers (`traceidratio`, `parentbased_traceidratio`).
 *
 * Why at the door: the SDK's sampler decides only once the HTTP instrumentation has built the
 * server span's attributes, started a span and switched contexts, and every instrumentation and
 * pipeline step below then starts a span of its own, unrecorded. At a 10 % ratio that work, done for
 * the nine requests in ten nobody will see, cost a get by id about 0.3 ms of CPU beside its 0.4
 * (bench/results.md, "Sampling at the door"). A request left out at the door runs with tracing
 * suppressed, as a health check does (the HTTP instrumentation's ignore hook): no span, no context
 * switch, no trace ids in its log lines, nothing queued with a trace context.
 *
 * The standard variables keep their meaning. A request is let in with probability
 * OTEL_TRACES_SAMPLER_ARG (1 when unset or not a number in [0, 1], as the SDK reads it), and its
 * server span, a root that has passed the ratio already, is sampled. Any other root span (a
 * scheduler run, a delivery whose job carries no trace context) is sampled by its trace id at the
 * same ratio, as before. With `parentbased_traceidratio`, a request whose trace context is
 * continued (a `traceparent` from a trusted proxy) is always let in, and its parent's flag decides.
 * Any other sampler, or none: no door, and the SDK reads the variables itself.
 */
import type { IncomingMessage } from 'node:http';
import { SpanKind, type Attributes, type Context, type Link } from '@opentelemetry/api';
import { ParentBasedSampler, SamplingDecision, TraceIdRatioBasedSampler, type Sampler, type SamplingResult } from '@opentelemetry/sdk-trace';
import { incomingTraceContextTrusted } from './tracing';

export interface HeadSampling {
  /** The SDK's sampler, in place of the one it would read from the variables. */
  sampler: Sampler;
  /** Whether this request is left out (drawn once per request, before its server span would start). */
  leftOut(request: IncomingMessage): boolean;
}

export function headSamplingFrom(env: NodeJS.ProcessEnv): HeadSampling | undefined {
  const name = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase();
  if (name !== 'traceidratio' && name !== 'parentbased_traceidratio') return undefined;
  const ratio = ratioOf(env.OTEL_TRACES_SAMPLER_ARG);
  const parentBased = name === 'parentbased_traceidratio';
  const root = new LetInServerSpans(new TraceIdRatioBasedSampler(ratio));
  return {
    sampler: parentBased ? new ParentBasedSampler({ root }) : root,
    leftOut: (request) => {
      if (parentBased && request.headers.traceparent !== undefined && incomingTraceContextTrusted(request.socket.remoteAddress)) return false;
      return Math.random() >= ratio;
    },
  };
}

/** OTEL_TRACES_SAMPLER_ARG for a ratio sampler: a number in [0, 1], otherwise 1 (the SDK's default). */
function ratioOf(value: string | undefined): number {
  const ratio = value === undefined || value.trim() === '' ? NaN : Number(value);
  return Number.isFinite(ratio) && ratio >= 0 && ratio <= 1 ? ratio : 1;
}

/** A request's server span was let in at the door: sampled. Other roots: by trace id at the ratio. */
class LetInServerSpans implements Sampler {
  constructor(private readonly others: Sampler) {}

  shouldSample(context: Context, traceId: string, spanName: string, spanKind: SpanKind, attributes: Attributes, links: Link[]): SamplingResult {
    if (spanKind === SpanKind.SERVER) return { decision: SamplingDecision.RECORD_AND_SAMPLED };
    return this.others.shouldSample(context, traceId, spanName, spanKind, attributes, links);
  }

  toString(): string {
    return `LetInServerSpans{others=${this.others.toString()}}`;
  }
}
