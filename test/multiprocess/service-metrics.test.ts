/**
 * The metrics of one real service process (WEB_CONCURRENCY=1), on a port of their own: a journey
 * that causes every kind of event the operator is promised a series for (token issues, wrong
 * secrets and a lockout; an idempotent write executed, replayed, reused with another body and
 * sent again while in flight; a request that waits for a pooled connection in vain; a spent quota;
 * a scheduled transition), then one scrape that shows each series with its labels and the count
 * the journey caused. The partner port never serves the metrics.
 */
import { newCredential, postTokenFrom } from '../auth/token-harness';
import { backOffice } from '../support/back-office';
import { guaranteeBody, newKey } from '../support/factories';
import { scrapeMetrics, type Scrape } from '../support/metrics-scrape';
import { asPartner } from '../support/partner-api';
import { holdGuaranteeRow, waitForLockWaiters } from '../support/row-lock';
import { bearerFor, call, freePort, startService, stopAllServices, type ServiceProcess } from '../support/service-process';
import { useTestApp } from '../support/test-app';
import { DAY_MS } from '../scheduler/scheduler-helpers';

jest.setTimeout(120_000);

const QUOTA = 20;
const POOL_WAIT_MS = 3_000;
const t = useTestApp({}, { agencies: 1 });
t.beforeClose(stopAllServices);
let service: ServiceProcess;
let metricsPort: number;
let expiring: number;

beforeAll(async () => {
  // A proposal approved 31 days ago: the process's first scheduler run expires it.
  expiring = (await asPartner(t).newGuarantee()).id;
  await backOffice(t).approve(expiring);
  await t.db.rentalInsurance.update({ where: { id: BigInt(expiring) }, data: { approvedAt: new Date(Date.now() - 31 * DAY_MS) } });
  metricsPort = await freePort();
  service = await startService(t.databaseUrl, {
    METRICS_PORT: String(metricsPort),
    // Two connections: two writes held on a locked row take them all, and the next request waits.
    DATABASE_POOL_MAX: '2',
    DATABASE_POOL_WAIT_MS: String(POOL_WAIT_MS),
    RATE_LIMIT_REQUESTS: String(QUOTA),
    RATE_LIMIT_WINDOW_SECONDS: '300',
    TOKEN_FAILURES_PER_CLIENT: '2',
    TOKEN_LOCKOUT_ANSWER_DELAY_MS: '0',
    SCHEDULER_INTERVAL_MS: '200',
    // The sandbox reviewer leaves the journey's guarantees alone: the one transition is the expiry.
    SANDBOX_REVIEW_DELAY_SECONDS: '86400',
  });
}, 180_000);

const patchOf = (key: string, externalId: string) => ({
  'Idempotency-Key': key,
  'If-Match': 'W/"1", W/"2", W/"3"',
  'Content-Type': 'application/merge-patch+json',
  body: JSON.stringify({ externalId }),
});

describe('When one service process has served a journey that causes every listed event', () => {
  test('then its metrics port serves each series with its labels and the counts the journey caused', async () => {
    // Tokens: one issued; a victim's client ID fails twice, and its third request is locked out.
    const partner = await newCredential(t.db);
    const auth = await bearerFor(service.origin, partner);
    const victim = await newCredential(t.db);
    const tokenStatuses = [];
    for (let attempt = 0; attempt < 3; attempt += 1) {
      tokenStatuses.push((await postTokenFrom(service.origin, '127.0.0.1', victim.clientId, `sbx_cs_wrong${attempt}`)).status);
    }
    expect(tokenStatuses).toEqual([401, 401, 429]);

    // Idempotent writes: executed, replayed, and the key reused for another body.
    const key = newKey();
    const body = guaranteeBody();
    const created = await call(service.origin, 'POST', '/v1/rental-insurances', { ...auth, 'Idempotency-Key': key }, body);
    expect(created.status).toBe(201);
    const id = Number(created.body?.['id']);
    const replay = await call(service.origin, 'POST', '/v1/rental-insurances', { ...auth, 'Idempotency-Key': key }, body);
    expect([replay.status, replay.headers.get('idempotent-replay')]).toEqual([201, 'true']);
    const reused = await call(service.origin, 'POST', '/v1/rental-insurances', { ...auth, 'Idempotency-Key': key }, guaranteeBody());
    expect([reused.status, reused.body?.['code']]).toEqual([400, 'idempotency_key_reused']);

    // A write held on the locked row keeps its key: the same key again is 409 at once. A second held
    // write takes the pool's other connection, so a read waits for one until DATABASE_POOL_WAIT_MS.
    const lock = await holdGuaranteeRow(t, id);
    const heldKey = newKey();
    const { body: firstPatch, ...firstHeaders } = patchOf(heldKey, 'HELD-1');
    const first = call(service.origin, 'PATCH', `/v1/rental-insurances/${id}`, { ...auth, ...firstHeaders }, firstPatch);
    await waitForLockWaiters(t, 1);
    const again = await call(service.origin, 'PATCH', `/v1/rental-insurances/${id}`, { ...auth, ...firstHeaders }, firstPatch);
    expect([again.status, again.body?.['code']]).toEqual([409, 'idempotency_key_in_use']);
    const { body: secondPatch, ...secondHeaders } = patchOf(newKey(), 'HELD-2');
    const second = call(service.origin, 'PATCH', `/v1/rental-insurances/${id}`, { ...auth, ...secondHeaders }, secondPatch);
    await waitForLockWaiters(t, 2);
    const starved = call(service.origin, 'GET', `/v1/rental-insurances/${id}`, auth);
    const whileWaiting = await scrapeUntil((scrape) => (scrape.value('database_pool_connections', { state: 'waiting' }) ?? 0) >= 1, POOL_WAIT_MS);
    expect(whileWaiting.value('database_pool_connections', { state: 'waiting' })).toBeGreaterThanOrEqual(1);
    expect(whileWaiting.value('database_pool_connections', { state: 'in_use' })).toBe(2);
    expect(whileWaiting.value('database_pool_connections', { state: 'open' })).toBe(2);
    expect(whileWaiting.value('database_pool_connections', { state: 'idle' })).toBe(0);
    const refused = await starved;
    expect([refused.status, refused.body?.['code'], refused.headers.get('retry-after')]).toEqual([503, 'service_unavailable', '1']);
    lock.release();
    expect([(await first).status, (await second).status]).toEqual([200, 200]);
    await lock.done;

    // Another credential spends its quota.
    const spender = await bearerFor(service.origin, await newCredential(t.db));
    for (let request = 0; request < QUOTA; request += 1)
      expect((await call(service.origin, 'GET', '/v1/financial/balance', spender)).status).toBe(200);
    expect((await call(service.origin, 'GET', '/v1/financial/balance', spender)).status).toBe(429);

    const scrape = await scrapeUntil(
      (candidate) => candidate.value('scheduler_transitions_total', { job: 'expire_proposals', outcome: 'applied' }) === 1,
    );
    expect(scrape.status).toBe(200);
    expect(scrape.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    const partnerApi = (operation: string, status: number) => ({ api: 'partner', operation, status: String(status) });
    const counts: Array<[string, Record<string, string>, number]> = [
      ['token_requests_total', { outcome: 'issued' }, 2],
      ['token_requests_total', { outcome: 'invalid_client' }, 2],
      ['token_requests_total', { outcome: 'locked_out' }, 1],
      ['idempotency_outcomes_total', { outcome: 'executed' }, 3],
      ['idempotency_outcomes_total', { outcome: 'replayed' }, 1],
      ['idempotency_outcomes_total', { outcome: 'key_reused' }, 1],
      ['idempotency_outcomes_total', { outcome: 'key_in_use' }, 1],
      ['database_pool_wait_timeouts_total', {}, 1],
      ['rate_limit_rejections_total', { reason: 'quota' }, 1],
      ['scheduler_transitions_total', { job: 'expire_proposals', outcome: 'applied' }, 1],
      ['http_requests_total', partnerApi('createRentalInsurance', 201), 2],
      ['http_requests_total', partnerApi('createRentalInsurance', 400), 1],
      ['http_requests_total', partnerApi('patchRentalInsurance', 200), 2],
      ['http_requests_total', partnerApi('patchRentalInsurance', 409), 1],
      ['http_requests_total', partnerApi('getRentalInsurance', 503), 1],
      ['http_requests_total', partnerApi('getFinancialBalance', 200), QUOTA],
      ['http_requests_total', partnerApi('getFinancialBalance', 429), 1],
      ['http_request_duration_seconds_count', partnerApi('getRentalInsurance', 503), 1],
      ['http_request_duration_seconds_bucket', { le: '+Inf', ...partnerApi('patchRentalInsurance', 200) }, 2],
    ];
    for (const [name, labels, count] of counts) expect({ name, labels, value: scrape.value(name, labels) }).toEqual({ name, labels, value: count });
    // The read that waited in vain took at least the pool's wait: it is in no bucket below it.
    expect(scrape.value('http_request_duration_seconds_bucket', { le: '2.5', ...partnerApi('getRentalInsurance', 503) })).toBe(0);
    expect(scrape.value('http_request_duration_seconds_sum', partnerApi('getRentalInsurance', 503))).toBeGreaterThanOrEqual(POOL_WAIT_MS / 1000);
    expect(scrape.value('scheduler_runs_total')).toBeGreaterThanOrEqual(1);
    for (const state of ['open', 'idle', 'in_use', 'waiting'])
      expect(scrape.value('database_pool_connections', { state })).toEqual(expect.any(Number));
    expect(scrape.value('process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(scrape.value('nodejs_eventloop_lag_seconds')).toEqual(expect.any(Number));
  });

  test('then the partner port serves no metrics, at any path', async () => {
    for (const path of ['/metrics', '/rental-guarantee/metrics', '/rental-guarantee/../metrics', '/health/../metrics']) {
      const answer = await fetch(`${service.origin}${path}`);
      expect({ path, status: answer.status }).toEqual({ path, status: 404 });
      expect(await answer.text()).not.toMatch(/http_requests_total|process_resident_memory_bytes/);
    }
    expect((await scrapeMetrics(metricsPort)).status).toBe(200);
  });
});

/** Scrapes until `done` holds (or `withinMs` passes: the last scrape is returned either way). */
async function scrapeUntil(done: (scrape: Scrape) => boolean, withinMs = 20_000): Promise<Scrape> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const scrape = await scrapeMetrics(metricsPort);
    if (done(scrape) || Date.now() > deadline) return scrape;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
