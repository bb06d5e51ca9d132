/**
 * Sampling at the door (src/tracing/head-sampling.ts): with a ratio sampler, a request left out by
 * the ratio is not traced at all (no span of the HTTP instrumentation, Express, Prisma or ours, no
 * trace ids in its log lines), while a request whose trace context a trusted proxy continues is let
 * in and traced whole, as `parentbased_traceidratio` promises. The ratio here is 0, so that which
 * requests are left out does not depend on a draw.
 */
import http from 'node:http';
import { guaranteeBody, newKey } from '../support/factories';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { API_BASE, call, startService, stopAllServices, type ServiceProcess } from '../support/service-process';
import { useTestApp } from '../support/test-app';

jest.setTimeout(120_000);

const world = useTestApp({}, { agencies: 1 });
/** The proxy the service trusts: requests sent from this loopback address come "through" it. */
const PROXY = '127.0.0.2';
const SERVER = 2;

let otlp: OtlpReceiver;
let service: ServiceProcess;

beforeAll(async () => {
  otlp = await startOtlpReceiver();
  world.beforeClose(() => otlp.close());
  world.beforeClose(stopAllServices);
  service = await startService(
    world.databaseUrl,
    {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0',
      TRUST_PROXY: PROXY,
      LOG_LEVEL: 'info',
      SCHEDULER_INTERVAL_MS: '3600000',
    },
    120_000,
    { built: true },
  );
}, 420_000);

describe('When the sampler is parentbased_traceidratio and its ratio leaves a partner’s requests out', () => {
  const remoteTrace = '0af7651916cd43dd8448eb211c80319c';
  const remoteSpan = 'b7ad6b7169203331';

  it('then those requests leave no span and no trace ids in their log lines, and a request continued by a trusted proxy is traced whole', async () => {
    const created = await call(
      service.origin,
      'POST',
      '/v1/rental-insurances',
      { ...world.agency.auth, 'Idempotency-Key': newKey() },
      guaranteeBody(),
    );
    expect(created.status).toBe(201);
    const id = (created.body as { id: number }).id;
    // A sampled traceparent from anyone but the trusted proxy does not let a request in.
    expect(await getFrom('127.0.0.1', id, `00-${'e'.repeat(32)}-${remoteSpan}-01`)).toBe(200);
    expect(await getFrom(PROXY, id, `00-${remoteTrace}-${remoteSpan}-01`)).toBe(200);

    const continued = (all: ReceivedSpan[]) => all.some((span) => span.traceId === remoteTrace && span.name === 'db.read');
    await otlp.waitFor(continued);
    const server = otlp.spans.find((span) => span.traceId === remoteTrace && span.kind === SERVER);
    expect(server).toMatchObject({ name: `GET ${API_BASE}/v1/rental-insurances/{id}`, parentSpanId: remoteSpan });
    expect(otlp.spans.filter((span) => span.traceId === remoteTrace).map((span) => span.name)).toEqual(
      expect.arrayContaining(['pipeline.authenticate', 'pipeline.validate', 'pipeline.handler', 'db.read']),
    );
    // The create and the untrusted read ended before the continued read began, and were exported
    // no later: every span received belongs to the continued trace (no orphan root of Prisma's or ours).
    expect([...new Set(otlp.spans.map((span) => span.traceId))]).toEqual([remoteTrace]);

    const line = lineOf(service.output(), created.headers.get('x-correlation-id'));
    expect(line).toMatchObject({ msg: 'request completed', res: { statusCode: 201 } });
    expect(line).not.toHaveProperty('trace_id');
    expect(line).not.toHaveProperty('span_id');
  });
});

/** The `request completed` line of the request with this correlation id, parsed. */
function lineOf(output: string, correlationId: string | null): Record<string, unknown> | undefined {
  const lines = output.split('\n').filter((text) => text.startsWith('{') && text.includes(`"correlationId":"${correlationId}"`));
  return lines.map((text) => JSON.parse(text) as Record<string, unknown>).find((line) => line['msg'] === 'request completed');
}

/** GET of a guarantee on a connection made from `localAddress` (a loopback address), with a traceparent. */
function getFrom(localAddress: string, id: number, traceparent: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      `${service.origin}${API_BASE}/v1/rental-insurances/${id}`,
      { localAddress, agent: false, headers: { ...world.agency.auth, traceparent } },
      (response) => {
        response.resume();
        response.once('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.once('error', reject);
  });
}
