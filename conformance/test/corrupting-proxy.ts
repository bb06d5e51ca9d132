/**
 * A proxy in front of the real service that passes everything through, except ONE answer it makes
 * out of contract (the first that matches): the way the kit's self-test shows that the kit fails,
 * and names the step, when a deployment answers one response outside the contract.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Corruption {
  method: string;
  path: RegExp;
  /** Changes the answer: its status, headers (lower-case names) and parsed JSON body. */
  change: (answer: { status: number; headers: http.OutgoingHttpHeaders; body: unknown }) => void;
}

export async function startCorruptingProxy(upstream: string, corruption: Corruption): Promise<{ origin: string; corrupted: () => boolean; close: () => Promise<void> }> {
  const target = new URL(upstream);
  let done = false;
  const server = http.createServer((req, res) => {
    const forward = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } }, (upstreamResponse) => {
      const chunks: Buffer[] = [];
      upstreamResponse.on('data', (chunk: Buffer) => chunks.push(chunk));
      upstreamResponse.on('end', () => {
        // Passed through as bytes (a document's too); only the corrupted answer is parsed as JSON.
        const raw = Buffer.concat(chunks);
        const headers: http.OutgoingHttpHeaders = { ...upstreamResponse.headers };
        delete headers['content-length'];
        delete headers['transfer-encoding'];
        let status = upstreamResponse.statusCode ?? 502;
        let body: Buffer | string = raw;
        const path = (req.url ?? '').split('?')[0]!;
        if (!done && req.method === corruption.method && corruption.path.test(path) && status < 300) {
          done = true;
          const text = raw.toString('utf8');
          const answer = { status, headers, body: text ? (JSON.parse(text) as unknown) : undefined };
          corruption.change(answer);
          status = answer.status;
          body = answer.body === undefined ? '' : JSON.stringify(answer.body);
        }
        res.writeHead(status, headers);
        res.end(body);
      });
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    corrupted: () => done,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
