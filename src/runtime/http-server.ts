/**
 * The HTTP listener of a service process, with explicit timeouts against slow clients (Node's
 * defaults are 60 s for headers and 300 s per request): a client that has not sent its headers
 * within HTTP_HEADERS_TIMEOUT_MS, or its whole request within HTTP_REQUEST_TIMEOUT_MS, gets 408 and
 * its connection closed; an idle keep-alive connection is closed after HTTP_KEEP_ALIVE_TIMEOUT_MS;
 * and a connection on which nothing is read or written for HTTP_SOCKET_IDLE_TIMEOUT_MS (a client
 * that stopped reading its answer) is closed, so that it holds nothing of the service for longer.
 */
import http, { type RequestListener, type Server } from 'node:http';
import type { Config } from '../config';
import { answerMalformedRequests } from './malformed-http';

export async function listen(app: RequestListener, config: Config, port = config.PORT): Promise<Server> {
  const server = http.createServer(
    {
      headersTimeout: config.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeout: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      // Node would answer an HTTP/1.1 request without Host with a bare 400; the app answers it (app.ts).
      requireHostHeader: false,
      // Node checks the two timeouts above at this period; a tenth of the headers timeout keeps the check close to it.
      connectionsCheckingInterval: Math.max(100, Math.floor(config.HTTP_HEADERS_TIMEOUT_MS / 10)),
    },
    app,
  );
  // Without a 'timeout' listener Node destroys the socket when the timer fires.
  server.setTimeout(config.HTTP_SOCKET_IDLE_TIMEOUT_MS);
  answerMalformedRequests(server);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject).listen(port, config.HOST));
  return server;
}
