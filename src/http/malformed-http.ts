/**
 * Requests Node's HTTP parser refuses before Express sees them (control characters in headers,
 * obs-fold, oversized headers) still get the specification's error body and a correlation id.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

export function answerMalformedRequests(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const correlationId = randomUUID();
    const body = JSON.stringify({
      code: 'bad_request',
      message: 'The request is not valid HTTP (malformed or oversized headers).',
      timestamp: new Date().toISOString(),
      correlationId,
    });
    socket.end(
      'HTTP/1.1 400 Bad Request\r\n' +
        `Content-Type: application/json; charset=utf-8\r\nX-Correlation-Id: ${correlationId}\r\n` +
        `Connection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  });
}
