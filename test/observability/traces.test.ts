/**
 * Traces (issue 38 item 1): the built service, started as `npm start` starts it, exports its spans
 * to an OTLP/HTTP receiver this test runs, configured by the standard OTEL_* variables alone. A
 * create's trace holds the request, the pipeline's steps, the statements and the attempt of the
 * webhook delivery it queued, whose receiver gets that trace's `traceparent`; log lines carry the
 * trace's ids; an incoming `traceparent` is continued only from a trusted proxy (TRUST_PROXY) and
 * only linked otherwise; the scheduler's runs are traces of their own.
 */
import http from 'node:http';
import { tracingRequested } from '../../src/tracing/tracing-switch';
import { guaranteeBody, newKey } from '../support/factories';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { API_BASE, call, startService, stopAllServices, type ServiceProcess } from '../support/service-process';
import { useTestApp } from '../support/test-app';
import { startReceiver, webhookClient, type Receiver } from '../webhooks/webhook-support';

jest.setTimeout(120_000);

const world = useTestApp({}, { agencies: 1 });
/** The proxy the service trusts: requests sent from this loopback address (the test binds to it) come "through" it. */
const PROXY = '127.0.0.2';
/** OTLP's span kinds (one more than the API's SpanKind values). */
const SERVER = 2;
const CLIENT = 3;
const CONSUMER = 5;

let otlp: OtlpReceiver;
let hooks: Receiver;
let service: ServiceProcess;

beforeAll(async () => {
  otlp = await startOtlpReceiver();
  hooks = await startReceiver();
  world.beforeClose(() => otlp.close());
  world.beforeClose(() => hooks.close());
  world.beforeClose(stopAllServices);
  await webhookClient(world, () => world.agency).register(hooks.url);
  service = await startService(
    world.databaseUrl,
    {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      // Batches leave a tenth of a second after their first span (the SDK's default is 5 s).
      OTEL_BSP_SCHEDULE_DELAY: '100',
      TRUST_PROXY: PROXY,
      WEBHOOK_DELIVERY_CONCURRENCY: '2',
      LOG_LEVEL: 'info',
      // One run at start, then none while the test runs.
      SCHEDULER_INTERVAL_MS: '3600000',
    },
    120_000,
    { built: true },
  );
}, 420_000);

const inTrace = (traceId: string) => otlp.spans.filter((span) => span.traceId === traceId);
const named = (spans: ReceivedSpan[], name: string) => spans.filter((span) => span.name === name);

/** Whether `span` descends from `ancestor` through the parents received. */
function descendsFrom(span: ReceivedSpan, ancestor: ReceivedSpan, spans: ReceivedSpan[]): boolean {
  const byId = new Map(spans.map((each) => [each.spanId, each]));
  for (let parent = span.parentSpanId; parent !== undefined; parent = byId.get(parent)?.parentSpanId) {
    if (parent === ancestor.spanId) return true;
  }
  return false;
}

describe('When a partner creates a guarantee on a traced service', () => {
  it('then one trace holds the request, the pipeline steps, the statements and the queued delivery’s attempt, whose receiver gets that trace', async () => {
    const created = await call(
      service.origin,
      'POST',
      '/v1/rental-insurances',
      { ...world.agency.auth, 'Idempotency-Key': newKey() },
      guaranteeBody(),
    );
    expect(created.status).toBe(201);

    const spans = await otlp.waitFor((all) => all.some((span) => span.name === 'webhook.delivery_attempt'));
    const [server] = spans.filter((span) => span.kind === SERVER && span.name === `POST ${API_BASE}/v1/rental-insurances`);
    expect(server).toBeDefined();
    expect(server!.parentSpanId).toBeUndefined();
    expect(server!.service).toBe('rental-guarantee-api');
    expect(server!.attributes).toMatchObject({ 'http.route': `${API_BASE}/v1/rental-insurances`, 'http.response.status_code': 201 });

    // The attempt may be exported a moment after the write's last spans: wait for the whole trace.
    const trace = await otlp
      .waitFor((all) =>
        ['pipeline.final_statement', 'webhook.delivery_attempt'].every((name) => all.some((s) => s.traceId === server!.traceId && s.name === name)),
      )
      .then(() => inTrace(server!.traceId));
    for (const step of ['pipeline.authenticate', 'pipeline.validate', 'pipeline.idempotency_claim', 'pipeline.handler', 'pipeline.final_statement']) {
      const [span] = named(trace, step);
      expect({ step, found: span !== undefined }).toEqual({ step, found: true });
      expect({ step, underTheRequest: descendsFrom(span!, server!, trace) }).toEqual({ step, underTheRequest: true });
    }
    expect(named(trace, 'pipeline.handler')[0]!.attributes).toMatchObject({ 'rg.operation_id': 'createRentalInsurance' });

    // The statements, each with its SQL: the key's claim and the final statement among them.
    const statements = trace.filter((span) => span.scope === 'prisma' && typeof span.attributes['db.query.text'] === 'string');
    const [claim] = named(trace, 'pipeline.idempotency_claim');
    const [final] = named(trace, 'pipeline.final_statement');
    expect(statements.some((statement) => descendsFrom(statement, claim!, trace))).toBe(true);
    // The attempt continues the trace from the final statement that queued its job, and its POST is a client span beneath it.
    const [attempt] = named(trace, 'webhook.delivery_attempt');
    const finalStatements = statements.filter((statement) => descendsFrom(statement, final!, trace) && !descendsFrom(statement, attempt!, trace));
    expect(finalStatements.map((statement) => statement.attributes['db.query.text'])).toEqual([expect.stringContaining('INSERT INTO pgboss.job')]);
    expect(attempt!.kind).toBe(CONSUMER);
    expect(descendsFrom(attempt!, final!, trace)).toBe(true);
    const post = trace.find(
      (span) => span.kind === CLIENT && span.parentSpanId === attempt!.spanId && span.attributes['http.request.method'] === 'POST',
    );
    expect(post).toBeDefined();
    expect(trace.some((span) => span.scope === 'prisma' && descendsFrom(span, attempt!, trace))).toBe(true);

    // The receiver was told the trace and the span of that POST.
    const [delivered] = await hooks.waitFor((received) => received.length >= 1, 60_000);
    if (process.env.TRACE_TREE) console.log(tree(trace));
    expect(delivered!.headers['traceparent']).toBe(`00-${server!.traceId}-${post!.spanId}-01`);
  });

  it('then reading it back is a trace whose read statement, sent through the driver adapter, carries its SQL', async () => {
    const created = await call(
      service.origin,
      'POST',
      '/v1/rental-insurances',
      { ...world.agency.auth, 'Idempotency-Key': newKey() },
      guaranteeBody(),
    );
    expect(created.status).toBe(201);
    const read = await call(service.origin, 'GET', `/v1/rental-insurances/${(created.body as { id: number }).id}`, world.agency.auth);
    expect(read.status).toBe(200);
    const serverOf = (all: ReceivedSpan[]) => all.find((span) => span.kind === SERVER && span.name === `GET ${API_BASE}/v1/rental-insurances/{id}`);
    const server = serverOf(await otlp.waitFor((all) => serverOf(all) !== undefined))!;
    const trace = await otlp
      .waitFor((all) => all.some((span) => span.traceId === server.traceId && span.name === 'db.read'))
      .then(() => inTrace(server.traceId));
    const [statement] = named(trace, 'db.read');
    expect(descendsFrom(statement!, named(trace, 'pipeline.handler')[0]!, trace)).toBe(true);
    expect(statement!.attributes).toMatchObject({
      'db.system.name': 'postgresql',
      'db.query.text': expect.stringContaining('FROM rental_insurances r'),
    });
  });

  it('then the log lines written inside the request carry its trace_id and span_id', async () => {
    const created = await call(
      service.origin,
      'POST',
      '/v1/rental-insurances',
      { ...world.agency.auth, 'Idempotency-Key': newKey() },
      guaranteeBody(),
    );
    expect(created.status).toBe(201);
    const correlationId = created.headers.get('x-correlation-id');
    const line = await otlp.waitFor(() => lineOf(service.output(), correlationId) !== undefined).then(() => lineOf(service.output(), correlationId)!);
    expect(line).toMatchObject({ trace_id: expect.stringMatching(/^[0-9a-f]{32}$/), span_id: expect.stringMatching(/^[0-9a-f]{16}$/) });
    const serverOf = (all: ReceivedSpan[]) => all.find((span) => span.traceId === line['trace_id'] && span.kind === SERVER);
    const server = serverOf(await otlp.waitFor((all) => serverOf(all) !== undefined));
    expect(server).toMatchObject({ name: `POST ${API_BASE}/v1/rental-insurances`, spanId: line['span_id'] });
  });
});

/** The `request completed` line of the request with this correlation id, parsed. */
function lineOf(output: string, correlationId: string | null): Record<string, unknown> | undefined {
  const lines = output.split('\n').filter((text) => text.startsWith('{') && text.includes(`"correlationId":"${correlationId}"`));
  const completed = lines.map((text) => JSON.parse(text) as Record<string, unknown>).find((line) => line['msg'] === 'request completed');
  return completed;
}

describe('When a request arrives with a traceparent', () => {
  const remoteTrace = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
  const remoteSpan = '0102030405060708';

  it('then from a trusted proxy its trace is continued', async () => {
    const id = await someGuarantee();
    await getFrom(PROXY, id, `00-${remoteTrace}-${remoteSpan}-01`);
    const serverOf = (all: ReceivedSpan[]) => all.find((span) => span.traceId === remoteTrace && span.kind === SERVER);
    const server = serverOf(await otlp.waitFor((all) => serverOf(all) !== undefined));
    expect(server).toMatchObject({ name: `GET ${API_BASE}/v1/rental-insurances/{id}`, parentSpanId: remoteSpan });
  });

  it('then from anyone else it is only linked: the request starts a trace of its own', async () => {
    const id = await someGuarantee();
    const otherTrace = 'f0e0d0c0b0a090807060504030201000';
    await getFrom('127.0.0.1', id, `00-${otherTrace}-${remoteSpan}-01`);
    const linking = (all: ReceivedSpan[]) => all.find((span) => span.kind === SERVER && span.links.some((link) => link.traceId === otherTrace));
    const server = linking(await otlp.waitFor((all) => linking(all) !== undefined))!;
    expect(server.traceId).not.toBe(otherTrace);
    expect(server.parentSpanId).toBeUndefined();
    expect(server.links).toEqual([{ traceId: otherTrace, spanId: remoteSpan }]);
    expect(inTrace(otherTrace)).toEqual([]);
  });
});

describe('When the scheduler runs', () => {
  it('then each run is a trace of its own', async () => {
    const runs = await otlp.waitFor((all) => all.some((span) => span.name === 'scheduler.run')).then((all) => named(all, 'scheduler.run'));
    for (const run of runs) {
      expect(run.parentSpanId).toBeUndefined();
      expect(otlp.spans.filter((span) => span.traceId === run.traceId && span.kind === SERVER)).toEqual([]);
    }
  });
});

describe('When no OTEL_* variable asks for traces', () => {
  it.each([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, true],
    [{ OTEL_TRACES_EXPORTER: 'otlp' }, true],
    [{ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, false],
    [{ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, false],
    [{ OTEL_SERVICE_NAME: 'rg', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio' }, false],
  ])('then the SDK is not started: %j -> %s', (env, started) => {
    expect(tracingRequested(env)).toBe(started);
  });
});

async function someGuarantee(): Promise<number> {
  const created = await call(service.origin, 'POST', '/v1/rental-insurances', { ...world.agency.auth, 'Idempotency-Key': newKey() }, guaranteeBody());
  expect(created.status).toBe(201);
  return created.body!['id'] as number;
}

/** GET of a guarantee on a connection made from `localAddress` (a loopback address), with a traceparent. */
function getFrom(localAddress: string, id: number, traceparent: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      `${service.origin}${API_BASE}/v1/rental-insurances/${id}`,
      { localAddress, agent: false, headers: { ...world.agency.auth, traceparent } },
      (response) => {
        response.resume();
        response.once('end', () => (response.statusCode === 200 ? resolve(200) : reject(new Error(`GET: ${response.statusCode}`))));
      },
    );
    request.once('error', reject);
  });
}

/** A trace as an indented tree (TRACE_TREE=1 prints the create's: what an operator sees). */
function tree(spans: ReceivedSpan[]): string {
  const lines: string[] = [];
  const walk = (parent: string | undefined, depth: number) => {
    for (const span of spans.filter((each) => each.parentSpanId === parent)) {
      const sql = span.attributes['db.query.text'];
      lines.push(`${'  '.repeat(depth)}${span.name} [${span.scope}]${typeof sql === 'string' ? ` ${sql.replace(/\s+/g, ' ').slice(0, 60)}` : ''}`);
      walk(span.spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines.join('\n');
}
