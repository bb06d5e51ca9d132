/**
 * Traces as the rest of the code sees them: the spans of ours (the pipeline's steps, a webhook
 * delivery attempt, the scheduler's runs), the trace context a queued job carries, and the trace
 * fields of log lines. Only `@opentelemetry/api` is loaded here; the SDK (tracing-sdk.ts) is
 * loaded by start-tracing.ts only when an OTEL_* variable asks for traces (tracing-switch.ts).
 *
 * With tracing off every helper here calls its function straight away: no span object, no context
 * switch, no closure beyond the caller's own (a request's cost stays what it was). With tracing on,
 * spans are started on the API's global tracer, which the SDK registered before anything else
 * loaded.
 */
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { ApiError } from '../errors';

/** What only the SDK can do, handed over by tracing-sdk.ts when it starts. */
export interface TracingSdkHooks {
  /** A context in which nothing is traced (the SDK core's suppressTracing). */
  suppress(active: Context): Context;
  /** Names the request's server span after its route template (the SDK core's RPC metadata). */
  nameServerSpan(active: Context, route: string): void;
  /** Exports what is buffered and stops. */
  shutdown(): Promise<void>;
}

let sdk: TracingSdkHooks | undefined;
const tracer = trace.getTracer('rental-guarantee-api');

/** Called once by tracing-sdk.ts, after the SDK is registered. */
export function tracingStarted(hooks: TracingSdkHooks): void {
  sdk = hooks;
}

export function tracingOn(): boolean {
  return sdk !== undefined;
}

/**
 * Exports the spans still buffered (graceful stop); nothing when tracing is off. A collector that
 * cannot be reached loses those spans, and never fails the stop.
 */
export async function flushTraces(): Promise<void> {
  await sdk?.shutdown().catch(() => undefined);
}

/**
 * Runs `work` in a span named `name`, a child of the active span (none without one). A refusal of the contract (an
 * ApiError under 500: 404, 409, 412...) is what the step is for, not a failure of it: it is
 * recorded as the span's `rg.refusal` attribute; anything else sets the span's status to ERROR.
 */
export function inSpan<T>(name: string, work: () => T, attributes?: Attributes): T {
  // Outside any span (a request left out by sampling at the door, a health check) a step makes none.
  if (!sdk || !trace.getActiveSpan()) return work();
  return tracer.startActiveSpan(name, { attributes }, (span) => finishWith(span, work));
}

/** `work` as the root span of a trace of its own (the scheduler's runs, housekeeping), whatever context it was started from. */
export function inRootSpan<T>(name: string, work: () => T, attributes?: Attributes): T {
  if (!sdk) return work();
  return tracer.startActiveSpan(name, { root: true, attributes }, ROOT_CONTEXT, (span) => finishWith(span, work));
}

/**
 * `work` as a consumer span continuing the trace whose context `carrier` holds (a job's data,
 * traceContext() when it was queued); a trace of its own when the carrier holds none.
 */
export function inContinuedSpan<T>(name: string, carrier: TraceCarrier | undefined, work: () => T, attributes?: Attributes): T {
  if (!sdk) return work();
  const parent = carrier?.traceparent ? propagation.extract(ROOT_CONTEXT, carrier) : ROOT_CONTEXT;
  return tracer.startActiveSpan(name, { kind: SpanKind.CONSUMER, attributes }, parent, (span) => finishWith(span, work));
}

/** `work` with nothing traced (bookkeeping whose statements would make traces of their own: the request log's batches). */
export function untraced<T>(work: () => T): T {
  if (!sdk) return work();
  return context.with(sdk.suppress(context.active()), work);
}

/** Sets attributes on the active span (nothing when tracing is off or no span is active). */
export function annotateSpan(attributes: Attributes): void {
  if (sdk) trace.getActiveSpan()?.setAttributes(attributes);
}

/** The request's server span is named `METHOD <route>` (its path template, e.g. `/rental-guarantee/v1/rental-insurances/{id}`). */
export function nameRequestRoute(route: string): void {
  sdk?.nameServerSpan(context.active(), route);
}

/**
 * Whether an incoming request's `traceparent` may be continued: only when the connection comes from
 * a proxy named in TRUST_PROXY (app.ts hands Express's compiled rule here). From anyone else the
 * header is only linked (tracing-sdk.ts): a caller cannot graft its requests onto another trace,
 * nor force them sampled.
 */
let trustedPeer: (address: string) => boolean = () => false;

export function trustIncomingTraceContext(trust: (address: string, hop: number) => boolean): void {
  trustedPeer = (address) => trust(address, 0);
}

export function incomingTraceContextTrusted(peerAddress: string | undefined): boolean {
  return peerAddress !== undefined && trustedPeer(peerAddress);
}

/** The W3C trace context fields a queued job carries in its data. */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

/** The active trace context to carry (a job queued by this write); undefined when tracing is off or no span is active. */
export function traceContext(): TraceCarrier | undefined {
  if (!sdk || !trace.getActiveSpan()) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ? { traceparent: carrier.traceparent, ...(carrier.tracestate ? { tracestate: carrier.tracestate } : {}) } : undefined;
}

/** Adds the active trace context to outgoing request headers (a webhook attempt's `traceparent`). */
export function withTraceHeaders(headers: Record<string, string>): Record<string, string> {
  if (!sdk) return headers;
  const withContext = { ...headers };
  propagation.inject(context.active(), withContext);
  return withContext;
}

/** pino's mixin: the active span's ids on every log line written inside it. */
export function logTraceFields(): Record<string, string> {
  const span = sdk ? trace.getActiveSpan() : undefined;
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return trace.isSpanContextValid(span.spanContext()) ? { trace_id: traceId, span_id: spanId } : {};
}

function finishWith<T>(span: Span, work: () => T): T {
  let result: T;
  try {
    result = work();
  } catch (error) {
    failed(span, error);
    span.end();
    throw error;
  }
  if (!(result instanceof Promise)) {
    span.end();
    return result;
  }
  return result.then(
    (value: unknown) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      failed(span, error);
      span.end();
      throw error;
    },
  ) as T;
}

function failed(span: Span, error: unknown): void {
  if (error instanceof ApiError && error.status < 500) {
    span.setAttribute('rg.refusal', `${error.status} ${error.code}`);
    return;
  }
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}
