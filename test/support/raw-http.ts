/**
 * An HTTP client with full control of what goes on the wire: exact headers (no defaults beyond
 * Host and Content-Length), exact body bytes, and the raw path (malformed percent-encoding
 * included). Node's client still refuses header values with CR, LF or NUL and paths with
 * control characters or spaces; `rawSocketRequest` sends bytes that it would refuse.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  body: Record<string, unknown> | undefined;
}

export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
}

export interface Listening {
  origin: string;
  port: number;
  close(): Promise<void>;
}

/** Listens on an ephemeral loopback port with the app (keep-alive off so every request is alone). */
export async function listen(app: Express): Promise<Listening> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

export function rawRequest(origin: string, request: RawRequest): Promise<RawResponse> {
  const url = new URL(origin);
  const body = request.body === undefined ? undefined : Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body, 'utf8');
  const headers: Record<string, string | string[] | number> = { ...(request.headers ?? {}) };
  if (body !== undefined) headers['Content-Length'] = body.length;
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      { host: url.hostname, port: url.port, method: request.method, path: request.path, headers: headers as http.OutgoingHttpHeaders, agent },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: Record<string, unknown> | undefined;
          try {
            parsed = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
          } catch {
            parsed = undefined;
          }
          resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, text, body: parsed });
        });
        incoming.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** Writes `bytes` on a fresh TCP connection and returns what the server answered before closing. */
export function rawSocketRequest(
  port: number,
  bytes: string | Buffer,
  timeoutMs = 5000,
): Promise<{ statusLine: string; headers: Record<string, string>; body: string; raw: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      // One response is enough: stop once its body is complete.
      const raw = Buffer.concat(chunks).toString('latin1');
      const end = raw.indexOf('\r\n\r\n');
      if (end >= 0) {
        const length = /\r\ncontent-length:\s*(\d+)/i.exec(raw.slice(0, end))?.[1];
        if (length !== undefined && Buffer.byteLength(raw.slice(end + 4), 'latin1') >= Number(length)) socket.end();
      }
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      if (chunks.length === 0) reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = raw.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ statusLine, headers, body: rest.join('\r\n\r\n'), raw });
    });
  });
}
