/**
 * Every core of the host: WEB_CONCURRENCY=2 runs a cluster primary and two workers on one port and
 * one database. The workers share one quota per credential (counted by the primary), both serve
 * requests, and the primary serves the workers' summed metrics on a port of its own, never through
 * the partner's address.
 */
import { guaranteeBody, newKey } from '../support/factories';
import { asPartner } from '../support/partner-api';
import { call, freePort, startService, stopAllServices, type ServiceProcess } from '../support/service-process';
import { useTestApp } from '../support/test-app';
import { eventually } from '../support/wait-for';

jest.setTimeout(120_000);

const t = useTestApp({}, { agencies: 1 });
t.beforeClose(stopAllServices);
let service: ServiceProcess;
let metricsPort: number;

beforeAll(async () => {
  metricsPort = await freePort();
  service = await startService(t.databaseUrl, {
    WEB_CONCURRENCY: '2',
    RATE_LIMIT_REQUESTS: '30',
    RATE_LIMIT_WINDOW_SECONDS: '300',
    METRICS_PORT: String(metricsPort),
    LOG_LEVEL: 'info',
    SCHEDULER_INTERVAL_MS: '200',
  });
  // The first worker answers before the second listens; the primary logs its address once every
  // worker listens (on a busy machine all 40 calls below went to the first worker otherwise).
  expect(await eventually(() => service.output().includes('partner API at'), { withinMs: 60_000 })).toBe(true);
}, 180_000);

describe('When a cluster of two workers serves one credential', () => {
  test('then both workers answer, they share one quota, and the 429s carry the RateLimit headers', async () => {
    const { id } = await asPartner(t).newGuarantee();
    // Fresh connections, so that the primary hands them to both workers in turn.
    const answers = [];
    for (let call_ = 0; call_ < 40; call_ += 1) {
      answers.push(await call(service.origin, 'GET', `/v1/rental-insurances/${id}`, { ...t.agency.auth, Connection: 'close' }));
    }
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(30);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused).toHaveLength(10);
    for (const answer of refused) {
      expect(answer.body?.['code']).toBe('rate_limited');
      expect(answer.headers.get('ratelimit-policy')).toBe('default;q=30;w=300, agency;q=3600;w=300');
      expect(answer.headers.get('ratelimit')).toMatch(/^default;r=0;t=\d+, agency;r=\d+;t=\d+$/);
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    const workers = new Set(
      [...service.output().matchAll(/"worker":(\d+)[^\n]*"url":"\/rental-guarantee\/v1\/rental-insurances/g)].map((match) => match[1]),
    );
    expect([...workers].sort()).toEqual(['1', '2']);
  });

  test('then the primary serves every listed series after a journey, and the partner address does not serve them', async () => {
    const other = await t.newAgency();
    // A token from the cluster's own endpoint, counted by the workers' metrics.
    const issued = await fetch(`${service.origin.replace(/\/$/, '')}/auth/oauth2/token`, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${Buffer.from(`${other.clientId}:${other.clientSecret}`).toString('base64')}`,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    expect(issued.status).toBe(200);
    const key = newKey();
    const body = guaranteeBody();
    expect((await call(service.origin, 'POST', '/v1/rental-insurances', { ...other.auth, 'Idempotency-Key': key }, body)).status).toBe(201);
    expect(
      (await call(service.origin, 'POST', '/v1/rental-insurances', { ...other.auth, 'Idempotency-Key': key }, body)).headers.get('idempotent-replay'),
    ).toBe('true');
    expect((await call(service.origin, 'GET', '/v1/rental-insurances?tenantName=maria', other.auth)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 600)); // at least one scheduler run per worker

    const scraped = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await scraped.text();
    for (const series of [
      /^http_requests_total\{api="partner",operation="createRentalInsurance",status="201"\} [1-9]/m,
      /^http_requests_total\{api="partner",operation="getRentalInsurance",status="429"\} 10$/m,
      /^http_request_duration_seconds_bucket\{le="0\.05",api="partner",operation="getRentalInsurance",status="200"\} \d+/m,
      /^idempotency_outcomes_total\{outcome="replayed"\} [1-9]/m,
      /^idempotency_outcomes_total\{outcome="executed"\} [1-9]/m,
      /^rate_limit_rejections_total\{reason="quota"\} 10$/m,
      /^database_pool_connections\{state="(open|idle|in_use|waiting)"\} \d+/m,
      /^scheduler_runs_total [1-9]/m,
      /^token_requests_total\{outcome="issued"\} [1-9]/m,
      /^process_resident_memory_bytes \d+/m,
    ]) {
      expect(text).toMatch(series);
    }
    const throughPartnerAddress = await call(service.origin, 'GET', '/../metrics', {});
    expect(throughPartnerAddress.status).toBe(404);
    expect((await fetch(`${service.origin}/metrics`)).status).toBe(404);
  });

  test('then SIGTERM to the primary drains both workers and the whole cluster exits by itself', async () => {
    process.kill(service.pid, 'SIGTERM');
    expect(await service.exited).toBe(0);
    expect((await call(service.origin, 'GET', '/v1/rental-insurances', t.agency.auth)).status).toBe(0);
  });
});
