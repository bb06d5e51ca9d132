/**
 * An OTLP/HTTP trace receiver on 127.0.0.1 for the tracing tests: it accepts what an exporter sends
 * to `POST /v1/traces` with `OTEL_EXPORTER_OTLP_PROTOCOL=http/json` (the OTLP JSON encoding: ids as
 * hex strings, attributes as typed values) and keeps every span, flattened with its resource's
 * service name.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from './wait-for';

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: KeyValue[];
  links?: Array<{ traceId: string; spanId: string; attributes?: KeyValue[] }>;
  status?: { code?: number; message?: string };
}
interface ExportRequest {
  resourceSpans?: Array<{ resource?: { attributes?: KeyValue[] }; scopeSpans?: Array<{ scope?: { name?: string }; spans?: OtlpSpan[] }> }>;
}

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Absent on a trace's root span. */
  parentSpanId?: string;
  name: string;
  kind: number;
  /** The instrumentation scope that made it (`@opentelemetry/instrumentation-http`, `prisma`, ours...). */
  scope: string;
  service: string;
  attributes: Record<string, string | number | boolean>;
  links: Array<{ traceId: string; spanId: string }>;
}

export interface OtlpReceiver {
  /** The exporter's OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Export requests that were not OTLP JSON (a test of the receiver's own assumptions). */
  refused: number;
  /** Waits until `predicate` holds for the spans received so far, or fails after `ms`. */
  waitFor(predicate: (spans: ReceivedSpan[]) => boolean, ms?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const receiver = { refused: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const json = (req.headers['content-type'] ?? '').startsWith('application/json');
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !json) {
        receiver.refused += 1;
        res.writeHead(415).end();
        return;
      }
      spans.push(...flatten(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    get refused() {
      return receiver.refused;
    },
    waitFor: async (predicate, ms = 60_000) => {
      if (!(await eventually(() => predicate(spans), { withinMs: ms }))) {
        throw new Error(`OTLP receiver: condition not met in ${ms} ms; spans: ${spans.map((span) => span.name).join(', ')}`);
      }
      return spans;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function flatten(request: ExportRequest): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
    return (resourceSpans.scopeSpans ?? []).flatMap((scopeSpans) =>
      (scopeSpans.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
        name: span.name,
        kind: span.kind,
        scope: scopeSpans.scope?.name ?? '',
        service,
        attributes: attributesOf(span.attributes),
        links: (span.links ?? []).map((link) => ({ traceId: link.traceId, spanId: link.spanId })),
      })),
    );
  });
}

function attributesOf(list: KeyValue[] | undefined): Record<string, string | number | boolean> {
  const attributes: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? []) {
    const scalar = value.stringValue ?? value.boolValue ?? value.doubleValue ?? (value.intValue === undefined ? undefined : Number(value.intValue));
    if (scalar !== undefined) attributes[key] = scalar;
  }
  return attributes;
}
