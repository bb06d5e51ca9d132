/**
 * Requests Node's HTTP parser refuses before Express sees them (control characters in headers,
 * obs-fold, oversized headers) still get the specification's error body and a correlation id; a
 * client too slow to send its headers or its request within the server's timeouts gets 408.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

const TIMEOUT_CODES = new Set(['ERR_HTTP_REQUEST_TIMEOUT', 'ERR_HTTP_HEADERS_TIMEOUT']);

export function answerMalformedRequests(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const timedOut = TIMEOUT_CODES.has(error.code ?? '');
    const correlationId = randomUUID();
    const body = JSON.stringify({
      code: timedOut ? 'request_timeout' : 'bad_request',
      message: timedOut ? 'The request was not received in time.' : 'The request is not valid HTTP (malformed or oversized headers).',
      timestamp: new Date().toISOString(),
      correlationId,
    });
    socket.end(
      `HTTP/1.1 ${timedOut ? '408 Request Timeout' : '400 Bad Request'}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nX-Correlation-Id: ${correlationId}\r\n` +
        `Connection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  });
}
