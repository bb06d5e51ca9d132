/**
 * Answers that Node's HTTP server would give by itself, before Express sees the request, get the
 * specification's error body and a correlation id like every other answer: requests the parser
 * refuses (control characters in headers, obs-fold, oversized headers) are 400, a client too slow
 * to send its headers or its request within the server's timeouts gets 408, and an `Expect` other
 * than `100-continue` is 417 (Node would answer a bare 417). An HTTP/1.1 request without Host,
 * which Node would also answer bare, is let through (http-server.ts) and refused by the app.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from '../errors';
import { correlationIdOf } from '../http/correlation-id';
import { errorBody } from '../http/error-response';

const TIMEOUT_CODES = new Set(['ERR_HTTP_REQUEST_TIMEOUT', 'ERR_HTTP_HEADERS_TIMEOUT']);

export function answerMalformedRequests(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const timedOut = TIMEOUT_CODES.has(error.code ?? '');
    const correlationId = randomUUID();
    const body = JSON.stringify(
      errorBody(
        timedOut
          ? new ApiError(408, 'request_timeout', 'The request was not received in time.')
          : new ApiError(400, 'bad_request', 'The request is not valid HTTP (malformed or oversized headers).'),
        correlationId,
      ),
    );
    socket.end(
      `HTTP/1.1 ${timedOut ? '408 Request Timeout' : '400 Bad Request'}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nX-Correlation-Id: ${correlationId}\r\nX-Content-Type-Options: nosniff\r\n` +
        `Connection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  });
  // Only `Expect: 100-continue` reaches the app (Node answers it with 100 Continue by itself).
  server.on('checkExpectation', (req, res) => {
    const correlationId = correlationIdOf(req.headers['x-correlation-id']);
    const body = JSON.stringify(
      errorBody(new ApiError(417, 'expectation_failed', 'The only expectation this service meets is "Expect: 100-continue".'), correlationId),
    );
    res.writeHead(417, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      'X-Correlation-Id': correlationId,
      'X-Content-Type-Options': 'nosniff',
      Connection: 'close',
    });
    res.end(body);
  });
}
