/**
 * What the process's log looks like (LOG_FORMAT): readable lines for a person at a terminal outside
 * production (`make start`), JSON lines for anything else (a pipe, a file, a collector, production).
 */
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config';
import { createLogger, logFormat } from '../../src/logger';

function capture(): { lines: string[]; stream: Writable } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, stream };
}

const flushed = () => new Promise((resolve) => setImmediate(resolve));

describe('When LOG_FORMAT is left to auto', () => {
  test('then a terminal outside production gets readable lines, and a pipe or production gets JSON lines', () => {
    expect(loadConfig({}).LOG_FORMAT).toBe('auto');
    expect(logFormat('auto', 'sandbox', true)).toBe('pretty');
    expect(logFormat('auto', 'sandbox', false)).toBe('json');
    expect(logFormat('auto', 'production', true)).toBe('json');
    expect(logFormat('json', 'sandbox', true)).toBe('json');
    expect(logFormat('pretty', 'production', false)).toBe('pretty');
  });
});

describe('When the log is pretty', () => {
  test('then an access line reads as method, URL, status and time, with its correlation id; secrets stay redacted', async () => {
    const { lines, stream } = capture();
    const logger = createLogger('info', stream, {}, 'pretty');
    logger.info(
      { correlationId: 'c-1', req: { method: 'GET', url: '/v1/x?access_token=[redacted]' }, res: { statusCode: 401 }, responseTime: 7 },
      'request completed',
    );
    logger.info({ body: { client_secret: 'sbx_cs_never' } }, 'started');
    await flushed();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/INFO: GET \/v1\/x\?access_token=\[redacted\] 401 7 ms \(request completed\) .*"correlationId":"c-1"/);
    expect(() => JSON.parse(lines[0]!)).toThrow();
    expect(lines[1]).toContain('started');
    expect(lines[1]).not.toContain('sbx_cs_never');
  });
});

describe('When the log is JSON', () => {
  test('then each line is one JSON object with the level, the message and the fields', async () => {
    const { lines, stream } = capture();
    createLogger('info', stream, { worker: 2 }, 'json').info({ correlationId: 'c-2' }, 'request completed');
    await flushed();
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 30,
      msg: 'request completed',
      correlationId: 'c-2',
      worker: 2,
      service: 'rental-guarantee-api',
    });
  });
});
