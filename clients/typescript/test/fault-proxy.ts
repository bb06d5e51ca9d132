/**
 * A small HTTP proxy between the client under test and the real service. It records every request
 * and, when told to, misbehaves the way networks and busy services do: it answers a request itself
 * (503, 429, 409 idempotency_key_in_use, 500, 401) without forwarding it, or forwards it, lets the
 * service finish, and then drops the connection so that the answer is lost, or adds headers to the
 * service's answer (the Deprecation and Sunset of a deprecated operation, which no operation sends yet).
 * It stands in for the network only; the service behind it is the real one.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** What the client got: the status, or `dropped` when the proxy lost the answer. */
  outcome: number | 'dropped';
  /** Date.now() when the request had fully arrived: the gap between attempts is the client's wait. */
  receivedAt: number;
}

export type FaultAction =
  { respond: { status: number; headers?: Record<string, string>; body?: unknown } } | { dropAnswer: true } | { addHeaders: Record<string, string> };

export interface Fault {
  method: string;
  /** Matched against the path without the query: a prefix, or an exact path when it ends with `$`. */
  path: string;
  action: FaultAction;
  /** How many matching requests it applies to (default 1). */
  times?: number;
}

export interface FaultProxy {
  origin: string;
  requests: RecordedRequest[];
  inject(fault: Fault): void;
  /** Requests whose path starts with the prefix (and method, when given). */
  requestsTo(prefix: string, method?: string): RecordedRequest[];
  close(): Promise<void>;
}

export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const target = new URL(upstream);
  const faults: Array<Fault & { left: number }> = [];
  const requests: RecordedRequest[] = [];

  const matches = (fault: Fault, method: string, path: string) =>
    fault.method === method && (fault.path.endsWith('$') ? path === fault.path.slice(0, -1) : path.startsWith(fault.path));

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const path = (req.url ?? '/').split('?')[0]!;
      const record: RecordedRequest = {
        method: req.method ?? 'GET',
        path,
        headers: req.headers,
        body: body.toString('utf8'),
        outcome: 0,
        receivedAt: Date.now(),
      };
      requests.push(record);
      const fault = faults.find((candidate) => candidate.left > 0 && matches(candidate, record.method, path));
      if (fault) fault.left -= 1;
      if (fault && 'respond' in fault.action) {
        const { status, headers = {}, body: answer } = fault.action.respond;
        record.outcome = status;
        res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
        res.end(answer === undefined ? '' : JSON.stringify(answer));
        return;
      }
      const upstreamRequest = http.request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
        (upstreamResponse) => {
          const answer: Buffer[] = [];
          upstreamResponse.on('data', (chunk: Buffer) => answer.push(chunk));
          upstreamResponse.on('end', () => {
            if (fault && 'dropAnswer' in fault.action) {
              // The service has finished (and committed); the client never hears of it.
              record.outcome = 'dropped';
              req.socket.destroy();
              return;
            }
            record.outcome = upstreamResponse.statusCode ?? 0;
            const added = fault && 'addHeaders' in fault.action ? fault.action.addHeaders : {};
            res.writeHead(upstreamResponse.statusCode ?? 502, { ...upstreamResponse.headers, ...added });
            res.end(Buffer.concat(answer));
          });
        },
      );
      upstreamRequest.on('error', () => req.socket.destroy());
      upstreamRequest.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    inject: (fault) => faults.push({ ...fault, left: fault.times ?? 1 }),
    requestsTo: (prefix, method) => requests.filter((request) => request.path.startsWith(prefix) && (!method || request.method === method)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
