/**
 * Answers given before any operation is chosen, on the service's real listener: an `Expect` other
 * than 100-continue (Node would answer a bare 417), an HTTP/1.1 request without Host (a bare 400)
 * and bytes that are not HTTP (the parser's 400). Each carries X-Correlation-Id and the
 * specification's error body with the same id, and nothing is written.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../src/config';
import { listen } from '../../src/runtime/http-server';
import { asPartner } from '../support/partner-api';
import { rawSocketRequest } from '../support/raw-http';
import { useTestApp } from '../support/test-app';

const t = useTestApp({}, { agencies: 1 });
let server: Server;
let port: number;
beforeAll(async () => {
  server = await listen(t.app, loadConfig({ LOG_LEVEL: 'silent', PORT: '0' }), 0);
  port = (server.address() as AddressInfo).port;
  t.beforeClose(() => new Promise((resolve) => server.close(resolve)));
});

/** The error body of a raw answer, checked against its X-Correlation-Id header. */
function expectErrorAnswer(answer: Awaited<ReturnType<typeof rawSocketRequest>>, status: number, code: string): Record<string, unknown> {
  expect(answer.statusLine).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  // Issue 34 item 7: on every answer, these included.
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
  const correlationId = answer.headers['x-correlation-id'];
  expect(correlationId).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  expect(body).toEqual({ code, message: expect.any(String), timestamp: expect.any(String), correlationId });
  expect(new Date(body['timestamp'] as string).toISOString()).toBe(body['timestamp']);
  return body;
}

const commentsPath = (id: number) => `/rental-guarantee/v1/rental-insurances/${id}/comments`;

describe('When a request carries an Expect the service does not meet', () => {
  test('then it is 417 expectation_failed with the caller’s correlation id and the error body, and the write does not run', async () => {
    const guaranteeId = (await asPartner(t).newGuarantee()).id;
    const body = JSON.stringify({ comment: 'never stored' });
    const answer = await rawSocketRequest(
      port,
      `POST ${commentsPath(guaranteeId)} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${t.agency.auth.Authorization}\r\n` +
        `Idempotency-Key: ${randomUUID()}\r\nContent-Type: application/json\r\nExpect: 200-ok\r\nX-Correlation-Id: erp-expect-1\r\n` +
        `Content-Length: ${body.length}\r\n\r\n${body}`,
    );
    expectErrorAnswer(answer, 417, 'expectation_failed');
    expect(answer.headers['x-correlation-id']).toBe('erp-expect-1');
    expect(await t.db.historyEntry.count({ where: { comment: 'never stored' } })).toBe(0);
  });

  test('then Expect: 100-continue is met as usual', async () => {
    const answer = await rawSocketRequest(port, 'GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n');
    expect(answer.raw).toMatch(/HTTP\/1\.1 200 /);
  });
});

describe('When an HTTP/1.1 request has no Host header', () => {
  test('then it is 400 bad_request with a correlation id and the error body', async () => {
    const answer = await rawSocketRequest(port, 'GET /health/live HTTP/1.1\r\nConnection: close\r\n\r\n');
    const body = expectErrorAnswer(answer, 400, 'bad_request');
    expect(body['message']).toMatch(/Host/);
  });
});

describe('When the bytes are not valid HTTP', () => {
  test('then it is 400 bad_request with a correlation id and the error body', async () => {
    const answer = await rawSocketRequest(port, 'GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nNo colon here\r\n\r\n');
    expectErrorAnswer(answer, 400, 'bad_request');
  });
});
