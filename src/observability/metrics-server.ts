/**
 * GET /metrics on METRICS_HOST:METRICS_PORT (127.0.0.1:9464 by default): a listener of its own, so
 * that no partner-facing address can reach it. In cluster mode the primary serves the sum of its
 * workers' registries (prom-client's AggregatorRegistry).
 */
import http, { type Server } from 'node:http';
import client from 'prom-client';

export async function startMetricsServer(host: string, port: number, cluster: boolean): Promise<Server | undefined> {
  if (port === 0) return undefined;
  const aggregator = cluster ? new client.AggregatorRegistry() : undefined;
  const server = http.createServer((req, res) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    const text = aggregator ? aggregator.clusterMetrics() : client.register.metrics();
    text.then(
      (body) => res.writeHead(200, { 'Content-Type': client.register.contentType }).end(body),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  return server;
}

/** A cluster worker answers the primary's requests for its registry (prom-client listens only once asked to). */
export function shareMetricsWithPrimary(): void {
  new client.AggregatorRegistry();
}
