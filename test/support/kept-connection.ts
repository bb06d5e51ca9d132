/**
 * One TCP connection that the test keeps and drives byte by byte, as a load balancer's kept-alive
 * connection or a slow client would: send a request in pieces, read the answers one by one (bodies
 * by Content-Length), and learn when the server closed it.
 */
import net from 'node:net';

export interface RawAnswer {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
}

export interface KeptConnection {
  write(bytes: string): void;
  /** The next complete answer on this connection (rejects if the connection closes first). */
  nextAnswer(): Promise<RawAnswer>;
  /** Writes a whole request and reads its answer. */
  request(bytes: string): Promise<RawAnswer>;
  /** Resolves with the time (Date.now()) at which the server closed the connection. */
  closed: Promise<number>;
  isClosed(): boolean;
  destroy(): void;
}

export function openKeptConnection(port: number, host = '127.0.0.1'): Promise<KeptConnection> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, host);
    let buffered = Buffer.alloc(0);
    let waiting: { resolve: (answer: RawAnswer) => void; reject: (error: Error) => void } | undefined;
    let closedAt: number | undefined;
    let markClosed!: (at: number) => void;
    const closed = new Promise<number>((done) => (markClosed = done));

    const deliver = () => {
      if (!waiting) return;
      const answer = takeAnswer();
      if (answer) {
        const receiver = waiting;
        waiting = undefined;
        receiver.resolve(answer);
      } else if (closedAt !== undefined) {
        const receiver = waiting;
        waiting = undefined;
        receiver.reject(new Error('the server closed the connection before a complete answer'));
      }
    };
    const takeAnswer = (): RawAnswer | undefined => {
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return undefined;
      const [statusLine = '', ...lines] = buffered.subarray(0, end).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length = Number(headers['content-length'] ?? 0);
      if (buffered.length < end + 4 + length) return undefined;
      const body = buffered.subarray(end + 4, end + 4 + length).toString('utf8');
      buffered = buffered.subarray(end + 4 + length);
      return { status: Number(statusLine.split(' ')[1]), headers, body };
    };

    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      deliver();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closedAt = Date.now();
      markClosed(closedAt);
      deliver();
    });
    socket.once('connect', () => {
      const connection: KeptConnection = {
        write: (bytes) => void socket.write(bytes),
        nextAnswer: () =>
          new Promise<RawAnswer>((resolveAnswer, rejectAnswer) => {
            waiting = { resolve: resolveAnswer, reject: rejectAnswer };
            deliver();
          }),
        request(bytes) {
          socket.write(bytes);
          return connection.nextAnswer();
        },
        closed,
        isClosed: () => closedAt !== undefined,
        destroy: () => socket.destroy(),
      };
      resolve(connection);
    });
    socket.once('error', reject);
  });
}
