/**
 * A partner's webhook receiver on 127.0.0.1 for the tests: it keeps every request's raw body and
 * headers as received (what verifyWebhook needs) and answers what `answer` says (default 200).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  rawBody: Buffer;
  headers: http.IncomingHttpHeaders;
}

export interface TestReceiver {
  url: string;
  received: ReceivedRequest[];
  /** Waits until `predicate` holds (polling every 50 ms), or fails after `ms`. */
  waitFor(predicate: (received: ReceivedRequest[]) => boolean, ms?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** On `port` when given (a handler that comes up where listen already forwards to). */
export async function startReceiver(answer: (request: ReceivedRequest) => number = () => 200, port = 0): Promise<TestReceiver> {
  const received: ReceivedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { rawBody: Buffer.concat(chunks), headers: req.headers };
      received.push(request);
      res.writeHead(answer(request), { 'content-type': 'text/plain' }).end('received');
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}/webhooks`,
    received,
    async waitFor(predicate, ms = 30_000) {
      const deadline = Date.now() + ms;
      while (!predicate(received)) {
        if (Date.now() > deadline) throw new Error(`receiver: condition not met within ${ms} ms (${received.length} requests received)`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
