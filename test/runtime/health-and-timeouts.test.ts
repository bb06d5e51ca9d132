/**
 * The health probes (openapi/health.yaml) and the server's timeouts against slow clients: a
 * draining or unready process answers readiness 503; a client that does not finish its headers in
 * time, or that sends its headers and then dribbles its body past the request timeout, gets 408
 * and its connection closed, while normal requests keep being served; an idle keep-alive
 * connection is kept for the keep-alive timeout, then closed.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { loadConfig } from '../../src/config';
import { createDatabaseClient } from '../../src/database/prisma-client';
import { readinessCheck } from '../../src/health/readiness';
import { Lifecycle } from '../../src/health/lifecycle';
import { listen } from '../../src/runtime/http-server';
import { expectErrorBody } from '../support/error-body';
import { guaranteeBody } from '../support/factories';
import { openKeptConnection } from '../support/kept-connection';
import { useTestApp } from '../support/test-app';

const t = useTestApp({}, { agencies: 1 });

describe('When a load balancer probes the process', () => {
  test('then liveness and readiness answer 200 with nothing but a status, without a token', async () => {
    for (const path of ['/health/live', '/health/ready']) {
      const response = await request(t.app).get(path);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ status: 'ok' });
      expect(response.headers['x-correlation-id']).toBeDefined();
    }
  });

  test('then readiness is false while the process drains, when a migration is missing, and when the database does not answer', async () => {
    const lifecycle = new Lifecycle();
    expect(await readinessCheck(t.db, lifecycle)()).toBe(true);
    expect(await readinessCheck(t.db, lifecycle, ['20991231000000_not_applied_yet'])()).toBe(false);
    const unreachable = createDatabaseClient('postgresql://nobody@127.0.0.1:9/none', { poolMax: 1, poolWaitMs: 500 });
    try {
      expect(await readinessCheck(unreachable, lifecycle)()).toBe(false);
    } finally {
      await unreachable.$disconnect();
    }
    lifecycle.startDraining();
    expect(await readinessCheck(t.db, lifecycle)()).toBe(false);
  });

  test('then the app of a draining process answers readiness 503 not_ready with Retry-After, and closes every connection it answers on', async () => {
    const drained = await t.anotherApp({}, { draining: true });
    const ready = await request(drained.app).get('/health/ready');
    expectErrorBody(ready, 503, 'not_ready');
    expect(ready.headers['retry-after']).toBe('1');
    expect(ready.headers['connection']).toBe('close');
    expect((await request(drained.app).get('/health/live')).headers['connection']).toBe('close');
  });
});

describe('When clients are too slow to send their headers', () => {
  test('then each gets 408 request_timeout and is closed after the headers timeout, while normal requests are served', async () => {
    const config = loadConfig({ LOG_LEVEL: 'silent', HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_REQUEST_TIMEOUT_MS: '2000', PORT: '0' });
    const server = await listen(t.app, config, 0);
    const { port } = server.address() as AddressInfo;
    try {
      const started = Date.now();
      const slow = Array.from(
        { length: 20 },
        () =>
          new Promise<{ answer: string; closedAfterMs: number }>((resolve) => {
            const socket = net.connect(port, '127.0.0.1', () => socket.write('GET /health/live HTTP/1.1\r\nHost: x\r\n'));
            let answer = '';
            socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
            socket.on('close', () => resolve({ answer, closedAfterMs: Date.now() - started }));
            socket.on('error', () => undefined);
          }),
      );
      for (let served = 0; served < 5; served += 1) {
        const live = await fetch(`http://127.0.0.1:${port}/health/live`);
        expect(live.status).toBe(200);
      }
      for (const { answer, closedAfterMs } of await Promise.all(slow)) {
        expect(answer).toMatch(/^HTTP\/1\.1 408 /);
        expect(answer).toContain('"code":"request_timeout"');
        // Not before the timeout. Node's own default (60 s) would outlast the test: the 408 at all
        // shows the configured timeout cut it (how soon after it is not asserted: a loaded machine).
        expect(closedAfterMs).toBeGreaterThanOrEqual(900);
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('When a client sends its headers and then dribbles its body', () => {
  test('then past HTTP_REQUEST_TIMEOUT_MS it gets 408 request_timeout, alone on its connection, and the connection is closed', async () => {
    const config = loadConfig({ LOG_LEVEL: 'silent', HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_REQUEST_TIMEOUT_MS: '2000', PORT: '0' });
    const server = await listen(t.app, config, 0);
    const { port } = server.address() as AddressInfo;
    try {
      const body = JSON.stringify(guaranteeBody());
      const started = Date.now();
      const dribbler = await openKeptConnection(port);
      dribbler.write(
        `POST /rental-guarantee/v1/rental-insurances HTTP/1.1\r\nHost: x\r\nAuthorization: ${t.agency.auth.Authorization}\r\n` +
          `Idempotency-Key: dribbled-1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
      );
      // One byte every 200 ms: the headers timeout (1 s) is met, the whole body would take minutes.
      const dribbling = setInterval(() => dribbler.write(body[Math.floor((Date.now() - started) / 200)] ?? ' '), 200);
      try {
        const answer = await dribbler.nextAnswer();
        expect(answer.status).toBe(408);
        expect(JSON.parse(answer.body)).toMatchObject({ code: 'request_timeout' });
        expect(answer.headers['connection']).toBe('close');
        const closedAfter = (await dribbler.closed) - started;
        // Cut by the request timeout, not the headers timeout (Node's own request timeout, 300 s,
        // would outlast the test).
        expect(closedAfter).toBeGreaterThanOrEqual(1_500);
        // Nothing else was written on the connection: the app's own answer to the aborted body never followed.
        await expect(dribbler.nextAnswer()).rejects.toThrow(/closed/);
      } finally {
        clearInterval(dribbling);
      }
      expect((await fetch(`http://127.0.0.1:${port}/health/live`)).status).toBe(200);
      expect(await t.db.idempotencyRecord.count({ where: { key: 'dribbled-1' } })).toBe(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('When a keep-alive connection stays idle', () => {
  test('then it serves further requests within HTTP_KEEP_ALIVE_TIMEOUT_MS, and the server closes it once that long has passed idle', async () => {
    const config = loadConfig({ LOG_LEVEL: 'silent', HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000', PORT: '0' });
    const server = await listen(t.app, config, 0);
    const { port } = server.address() as AddressInfo;
    try {
      const connection = await openKeptConnection(port);
      const first = await connection.request('GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n');
      expect([first.status, first.headers['connection'], first.headers['keep-alive']]).toEqual([200, 'keep-alive', 'timeout=1']);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect((await connection.request('GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n')).status).toBe(200);
      const idleSince = Date.now();
      const idleFor = (await connection.closed) - idleSince;
      // Not before the timeout; the server closed it (the configured timeout, not Node's default of
      // 5 s, is the one the first answer announced: `keep-alive: timeout=1`).
      expect(idleFor).toBeGreaterThanOrEqual(900);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
