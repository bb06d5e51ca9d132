/**
 * SIGTERM on a real service process.
 * During a burst of writes: new connections are refused at once, the writes in flight (some held
 * behind a row lock) finish with `Connection: close`, the process exits once they are done (its
 * grace period is longer than the test: it does not wait for it), and nothing is lost or applied
 * twice: replaying every key on a fresh process answers each write exactly once.
 * On its connections: idle keep-alive connections are closed at once; a readiness probe that was
 * being sent on a kept-alive connection when the signal came is answered 503 not_ready (and its
 * connection closed) while a slow request is still in flight, which then finishes.
 */
import { newKey, guaranteeBody } from '../support/factories';
import { asPartner } from '../support/partner-api';
import { call, startService, statusOnNewConnection, stopAllServices, type FetchResult } from '../support/service-process';
import { openKeptConnection } from '../support/kept-connection';
import { holdGuaranteeRow, waitForLockWaiters } from '../support/row-lock';
import { countGuarantees } from '../support/stored-state';
import { useTestApp } from '../support/test-app';

jest.setTimeout(120_000);

const t = useTestApp({}, { agencies: 1 });
t.beforeClose(stopAllServices);

const EARLY_VERSIONS = Array.from({ length: 20 }, (_, index) => `W/"${index + 1}"`).join(', ');

interface Write {
  key: string;
  method: 'POST' | 'PATCH';
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

const send = (origin: string, write: Write): Promise<FetchResult> =>
  call(origin, write.method, write.path, { ...t.agency.auth, 'Idempotency-Key': write.key, ...write.headers }, write.body);

describe('When a service process gets SIGTERM during a burst of writes', () => {
  test('then it refuses new connections, finishes the writes in flight, exits in time, and every key then replays or succeeds once', async () => {
    // Longer than the test: a process that waited for its grace period instead of its work would time it out.
    const service = await startService(t.databaseUrl, { SHUTDOWN_GRACE_MS: '120000' });
    const held = await asPartner(t).newGuarantee();
    const patches: Write[] = Array.from({ length: 4 }, (_, index) => ({
      key: newKey(),
      method: 'PATCH',
      path: `/v1/rental-insurances/${held.id}`,
      headers: { 'If-Match': EARLY_VERSIONS, 'Content-Type': 'application/merge-patch+json' },
      body: JSON.stringify({ externalId: `DRAIN-${index}` }),
    }));
    const creates: Write[] = Array.from({ length: 30 }, () => ({
      key: newKey(),
      method: 'POST',
      path: '/v1/rental-insurances',
      headers: {},
      body: guaranteeBody(),
    }));

    // The held guarantee's row stays locked by the test until released: its patches stay in flight.
    const lock = await holdGuaranteeRow(t, held.id);
    const inFlight = patches.map((write) => send(service.origin, write));
    const burst = creates.map(
      (write, index) => new Promise<FetchResult>((resolve) => setTimeout(() => resolve(send(service.origin, write)), index * 20)),
    );
    await waitForLockWaiters(t, patches.length);

    expect(await statusOnNewConnection(service.origin, '/v1/rental-insurances', t.agency.auth)).toBe(200);
    process.kill(service.pid, 'SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 200));
    // No new connection is accepted once the process drains (a fresh socket: fetch's pool may hold a
    // keep-alive socket whose last answer left just before the signal, and the server rightly answers on it).
    expect(await statusOnNewConnection(service.origin, '/v1/rental-insurances', t.agency.auth)).toBe(0);
    setTimeout(lock.release, 300);
    const patched = await Promise.all(inFlight);
    const created = await Promise.all(burst);
    await lock.done;
    const exitCode = await service.exited;

    for (const answer of patched) {
      expect(answer.status).toBe(200);
      expect(answer.headers.get('connection')).toBe('close');
    }
    expect(exitCode).toBe(0);
    expect(created.every((answer) => answer.status === 201 || answer.status === 0)).toBe(true);

    // A fresh process: every write of the burst, retried with its key, is answered exactly once.
    const fresh = await startService(t.databaseUrl);
    for (const [index, write] of [...patches, ...creates].entries()) {
      const first = [...patched, ...created][index]!;
      const retried = await send(fresh.origin, write);
      expect(retried.status).toBe(write.method === 'POST' ? 201 : 200);
      expect(retried.headers.get('idempotent-replay')).toBe(first.status === 0 ? 'false' : 'true');
      if (first.status !== 0) expect(retried.text).toBe(first.text);
    }
    expect(await countGuarantees(t, t.agency)).toBe(1 + creates.length);
    const version = (await t.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(held.id) } })).version;
    expect(version).toBe(1 + patches.length);
  });
});

describe('When a service process gets SIGTERM with keep-alive connections open and a slow request in flight', () => {
  test('then idle connections close at once, a probe begun on a kept connection is answered 503 not_ready, and the slow request finishes', async () => {
    // A keep-alive timeout far longer than the test: any connection closed here is closed by the drain.
    const service = await startService(t.databaseUrl, { SHUTDOWN_GRACE_MS: '5000', HTTP_KEEP_ALIVE_TIMEOUT_MS: '120000' });
    const held = await asPartner(t).newGuarantee();
    const lock = await holdGuaranteeRow(t, held.id);
    let slowSettled = false;
    const slow = send(service.origin, {
      key: newKey(),
      method: 'PATCH',
      path: `/v1/rental-insurances/${held.id}`,
      headers: { 'If-Match': 'W/"1"', 'Content-Type': 'application/merge-patch+json' },
      body: JSON.stringify({ externalId: 'SLOW-1' }),
    }).finally(() => (slowSettled = true));
    await waitForLockWaiters(t, 1);

    // The load balancer's probe connection and a partner's connection, both kept alive after an answer.
    const probe = await openKeptConnection(service.port);
    const idle = await openKeptConnection(service.port);
    const readyBefore = await probe.request('GET /health/ready HTTP/1.1\r\nHost: lb\r\n\r\n');
    expect([readyBefore.status, readyBefore.headers['connection']]).toEqual([200, 'keep-alive']);
    expect((await idle.request('GET /health/live HTTP/1.1\r\nHost: partner\r\n\r\n')).status).toBe(200);
    // The next probe has begun on the kept connection when the signal comes: that connection is busy, not idle.
    probe.write('GET /health/ready HTTP/1.1\r\n');
    await new Promise((resolve) => setTimeout(resolve, 100));

    process.kill(service.pid, 'SIGTERM');
    await idle.closed;
    // At the signal: while the slow request is still held (not after the drain, nor the keep-alive timeout).
    expect(slowSettled).toBe(false);
    expect(await statusOnNewConnection(service.origin, '/v1/rental-insurances', t.agency.auth)).toBe(0);

    const readyDraining = await (probe.write('Host: lb\r\n\r\n'), probe.nextAnswer());
    expect(readyDraining.status).toBe(503);
    expect(JSON.parse(readyDraining.body)).toMatchObject({ code: 'not_ready' });
    expect(readyDraining.headers['retry-after']).toBe('1');
    expect(readyDraining.headers['connection']).toBe('close');
    await probe.closed;
    expect(slowSettled).toBe(false);
    expect(service.alive()).toBe(true);

    lock.release();
    const finished = await slow;
    expect([finished.status, finished.headers.get('connection')]).toEqual([200, 'close']);
    await lock.done;
    expect(await service.exited).toBe(0);
  });
});
