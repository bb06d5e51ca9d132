/**
 * The OpenTelemetry SDK for Node, loaded (by start-tracing.ts) only when the OTEL_* variables ask
 * for traces, before the modules it instruments are loaded. Everything is configured by the standard
 * variables (OTEL_EXPORTER_OTLP_*, OTEL_TRACES_SAMPLER and _ARG, OTEL_SERVICE_NAME,
 * OTEL_RESOURCE_ATTRIBUTES, OTEL_BSP_*, OTEL_PROPAGATORS...), read by the SDK itself. Traces only:
 * the service's metrics stay Prometheus (/metrics) and its logs stay JSON lines on stdout, carrying
 * the trace's ids (logger.ts), so the SDK's own metrics and logs pipelines are given nothing.
 *
 * Instrumented: incoming and outgoing HTTP (the server span of each request, the client span of a
 * webhook attempt), Express's routers and handlers, and Prisma Client (`@prisma/instrumentation`:
 * each operation, transaction and statement). Our own spans are in tracing.ts.
 */
import type { IncomingMessage } from 'node:http';
import type { RequestOptions } from 'node:http';
import type { Attributes, Span } from '@opentelemetry/api';
import { getRPCMetadata, RPCType, suppressTracing } from '@opentelemetry/core';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { PrismaInstrumentation } from '@prisma/instrumentation';
import { redactUrl } from '../logger';
import { headSamplingFrom } from './head-sampling';
import { incomingTraceContextTrusted, tracingStarted } from './tracing';

const SERVICE_NAME = 'rental-guarantee-api';
/** Requests that are not partner work: probes and scrapes every few seconds would drown the traces. */
const UNTRACED_PATHS = /^\/(?:health\/|metrics(?:$|\?))/;
const TRACE_CONTEXT_HEADERS = ['traceparent', 'tracestate', 'baggage'] as const;
const W3C_TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** An untrusted request's trace context, taken off its headers before the HTTP instrumentation reads them. */
const untrustedContext = new WeakMap<IncomingMessage, string>();

export function startTracing(): void {
  // A ratio sampler decides at the door (head-sampling.ts); any other is the SDK's, read from the variables.
  const door = headSamplingFrom(process.env);
  const sdk = new NodeSDK({
    ...(door ? { sampler: door.sampler } : {}),
    // OTEL_SERVICE_NAME or a service.name in OTEL_RESOURCE_ATTRIBUTES wins over this default.
    ...(process.env.OTEL_SERVICE_NAME || /(?:^|,)\s*service\.name=/.test(process.env.OTEL_RESOURCE_ATTRIBUTES ?? '')
      ? {}
      : { serviceName: SERVICE_NAME }),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.test(request.url ?? '') || door?.leftOut(request) === true,
        // An outgoing request outside any trace (none today) makes no trace of its own.
        requireParentforOutgoingSpans: true,
        startIncomingSpanHook: incomingAttributes,
        requestHook: linkUntrustedContext,
        startOutgoingSpanHook: outgoingAttributes,
      }),
      // Routers and request handlers; the middlewares (correlation id, body reading...) are too
      // small to show, and the pipeline has spans of its own for its steps.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
      new PrismaInstrumentation(),
    ],
  });
  sdk.start();
  tracingStarted({
    suppress: (active) => suppressTracing(active),
    nameServerSpan: (active, route) => {
      const metadata = getRPCMetadata(active);
      if (metadata?.type === RPCType.HTTP) metadata.route = route;
    },
    shutdown: () => sdk.shutdown(),
  });
}

/**
 * Before the server span starts: a trace context sent by anyone but a trusted proxy is taken off
 * the request (so it starts a trace of its own) and kept to be linked; the client's address is the
 * connection's unless a trusted proxy forwarded it; the query is redacted as in the logs.
 */
function incomingAttributes(request: IncomingMessage): Attributes {
  const peer = request.socket.remoteAddress;
  const trusted = incomingTraceContextTrusted(peer);
  if (!trusted) {
    const traceparent = request.headers.traceparent;
    if (typeof traceparent === 'string') untrustedContext.set(request, traceparent);
    for (const name of TRACE_CONTEXT_HEADERS) delete request.headers[name];
  }
  const query = redactUrl(request.url ?? '').split('?')[1];
  return {
    ...(trusted || peer === undefined ? {} : { 'client.address': peer }),
    ...(query ? { 'url.query': query } : {}),
  };
}

/** The server span of a request whose trace context was not trusted links to it instead. */
function linkUntrustedContext(span: Span, request: unknown): void {
  const traceparent = untrustedContext.get(request as IncomingMessage);
  const parsed = traceparent ? W3C_TRACEPARENT.exec(traceparent.trim()) : null;
  if (!parsed || /^0+$/.test(parsed[1]!) || /^0+$/.test(parsed[2]!)) return;
  span.addLink({
    context: { traceId: parsed[1]!, spanId: parsed[2]!, traceFlags: parseInt(parsed[3]!, 16) & 1, isRemote: true },
    attributes: { 'rg.link': 'untrusted incoming traceparent' },
  });
}

/** A receiver's URL as the logs would show it: no user information, sensitive query values redacted. */
function outgoingAttributes(options: RequestOptions): Attributes {
  const protocol = options.protocol ?? 'http:';
  const host = options.hostname ?? options.host ?? 'localhost';
  const port = options.port ? `:${options.port}` : '';
  return { 'url.full': redactUrl(`${protocol}//${host}${port}${options.path ?? '/'}`) };
}
