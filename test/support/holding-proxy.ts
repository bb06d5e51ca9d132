/**
 * A TCP proxy in front of the test database server that can hold back what the server sends, as a
 * slow network would: `hold()` keeps every byte from the server to its clients in memory until
 * `release()`, while the clients' bytes still reach the server. A service process given
 * `databaseUrl` talks to PostgreSQL through it, its revocation listener included.
 */
import net from 'node:net';

export interface HoldingProxy {
  /** `target` with its host and port replaced by the proxy's. */
  databaseUrl: string;
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

export async function startHoldingProxy(target: string): Promise<HoldingProxy> {
  const upstream = new URL(target);
  // The embedded server is reached through its Unix socket (a `host` parameter naming a directory).
  const socketDirectory = upstream.searchParams.get('host');
  const port = Number(upstream.port || 5432);
  const connectUpstream = () =>
    socketDirectory?.startsWith('/') ? net.connect(`${socketDirectory}/.s.PGSQL.${port}`) : net.connect(port, upstream.hostname);
  let holding = false;
  const releases = new Set<() => void>();
  const sockets = new Set<net.Socket>();

  const server = net.createServer((client) => {
    const server = connectUpstream();
    sockets.add(client).add(server);
    const held: Buffer[] = [];
    const flush = () => {
      for (const chunk of held.splice(0)) client.write(chunk);
    };
    releases.add(flush);
    client.on('data', (chunk) => server.write(chunk));
    server.on('data', (chunk) => (holding ? held.push(chunk) : client.write(chunk)));
    const end = () => {
      releases.delete(flush);
      sockets.delete(client);
      sockets.delete(server);
      client.destroy();
      server.destroy();
    };
    client.on('close', end).on('error', end);
    server.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const databaseUrl = new URL(target);
  databaseUrl.hostname = '127.0.0.1';
  databaseUrl.port = String((server.address() as net.AddressInfo).port);
  databaseUrl.searchParams.delete('host');

  return {
    databaseUrl: databaseUrl.toString(),
    hold: () => void (holding = true),
    release() {
      holding = false;
      for (const flush of releases) flush();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
