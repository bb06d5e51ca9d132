/**
 * Issue 34 item 4: the public pages (`/openapi.json`, `/openapi.yaml`, `/docs`) cost nothing to
 * serve. Each is built once per process and origin, sent in the encoding `Accept-Encoding` allows
 * (brotli, else gzip, else as it is) with `Vary`, a strong `ETag` per encoding and
 * `Cache-Control`, and `If-None-Match` answers `304` without a body. Requests without a token are
 * counted per client address (`429 rate_limited` with `Retry-After` and the error body); the
 * health probes are not, and neither is a partner's traffic.
 */
import http from 'node:http';
import zlib from 'node:zlib';
import YAML from 'yaml';
import { metrics } from '../../src/observability/metrics';
import { expectErrorBody } from '../support/error-body';
import { API, asPartner } from '../support/partner-api';
import { listen, type Listening } from '../support/raw-http';
import { useTestApp } from '../support/test-app';

const PAGES = [
  { path: '/openapi.json', type: 'application/json; charset=utf-8' },
  { path: '/openapi.yaml', type: 'application/yaml; charset=utf-8' },
  { path: '/docs', type: 'text/html; charset=utf-8' },
] as const;

const world = useTestApp({}, { agencies: 1 });
let server: Listening;
beforeAll(async () => {
  server = await listen(world.app);
  world.beforeClose(() => server.close());
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  bytes: Buffer;
}

/** A GET whose body is kept as the bytes sent (no client decompresses it). */
function get(origin: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .get(`${origin}${path}`, { headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, bytes: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

const decoded = (answer: Answer) => {
  const encoding = answer.headers['content-encoding'];
  if (encoding === 'br') return zlib.brotliDecompressSync(answer.bytes);
  if (encoding === 'gzip') return zlib.gunzipSync(answer.bytes);
  return answer.bytes;
};

describe.each(PAGES)('When anyone reads $path', ({ path, type }) => {
  const url = `${API}${path}`;

  test('then the encoding follows Accept-Encoding, every encoding holds the same page, and each has its own strong ETag', async () => {
    const plain = await get(server.origin, url);
    const brotli = await get(server.origin, url, { 'Accept-Encoding': 'gzip, deflate, br' });
    const gzipped = await get(server.origin, url, { 'Accept-Encoding': 'gzip' });
    const refused = await get(server.origin, url, { 'Accept-Encoding': 'br;q=0, gzip;q=0.5' });
    expect([plain, brotli, gzipped, refused].map((answer) => [answer.status, answer.headers['content-encoding']])).toEqual([
      [200, undefined],
      [200, 'br'],
      [200, 'gzip'],
      [200, 'gzip'],
    ]);
    for (const answer of [plain, brotli, gzipped]) {
      expect(answer.headers).toMatchObject({
        'content-type': type,
        vary: 'Accept-Encoding',
        'cache-control': 'public, max-age=300',
        'x-content-type-options': 'nosniff',
        'content-length': String(answer.bytes.length),
      });
      expect(answer.headers['etag']).toMatch(/^"[A-Za-z0-9_-]{43}(-gzip|-br)?"$/);
      expect(decoded(answer).equals(plain.bytes)).toBe(true);
    }
    expect(new Set([plain, brotli, gzipped].map((answer) => answer.headers['etag'])).size).toBe(3);
    expect(brotli.bytes.length).toBeLessThan(plain.bytes.length / 3);
    expect(gzipped.bytes.length).toBeLessThan(plain.bytes.length / 3);
  });

  test('then If-None-Match naming its ETag is 304 without a body, and a stale one gets the page', async () => {
    const first = await get(server.origin, url, { 'Accept-Encoding': 'br' });
    const again = await get(server.origin, url, { 'Accept-Encoding': 'br', 'If-None-Match': `W/"stale", ${first.headers['etag']}` });
    expect(again.status).toBe(304);
    expect(again.bytes.length).toBe(0);
    expect(again.headers).toMatchObject({ etag: first.headers['etag'], vary: 'Accept-Encoding', 'cache-control': 'public, max-age=300' });
    // The brotli tag does not name the uncompressed page.
    expect((await get(server.origin, url, { 'If-None-Match': first.headers['etag']! })).status).toBe(200);
    expect((await get(server.origin, url, { 'Accept-Encoding': 'br', 'If-None-Match': '"stale"' })).status).toBe(200);
  });
});

test('When the pages are read many times, then each is built once for its origin, and the YAML and JSON documents are the same', async () => {
  const host = { Host: 'pages-built-once.test' };
  const builds = async () => Object.fromEntries((await metrics.publishedPageBuilds.get()).values.map((value) => [value.labels['kind'], value.value]));
  const before = await builds();
  for (let round = 0; round < 10; round += 1) {
    for (const { path } of PAGES)
      expect((await get(server.origin, `${API}${path}`, { ...host, 'Accept-Encoding': round % 2 ? 'br' : 'gzip' })).status).toBe(200);
  }
  const after = await builds();
  for (const kind of ['json', 'yaml', 'html']) expect((after[kind] ?? 0) - (before[kind] ?? 0)).toBe(1);
  const json = JSON.parse((await get(server.origin, `${API}/openapi.json`, host)).bytes.toString('utf8'));
  expect(YAML.parse((await get(server.origin, `${API}/openapi.yaml`, host)).bytes.toString('utf8'))).toEqual(json);
  expect(json.servers).toEqual([{ url: `http://pages-built-once.test${API}`, description: expect.any(String) }]);
});

describe('When one address reads the public pages without a token beyond its quota', () => {
  test('then it gets 429 rate_limited with Retry-After and the error body; other addresses, partners and health probes are not counted with it', async () => {
    const proxied = await world.anotherApp({
      ANONYMOUS_RATE_LIMIT_REQUESTS: '3',
      ANONYMOUS_RATE_LIMIT_WINDOW_SECONDS: '60',
      TRUST_PROXY: 'loopback',
    });
    const front = await listen(proxied.app);
    world.beforeClose(() => front.close());
    const from = (address: string) => ({ 'X-Forwarded-For': address, 'Accept-Encoding': 'br' });
    for (const { path } of PAGES) expect((await get(front.origin, `${API}${path}`, from('203.0.113.7'))).status).toBe(200);
    const refused = await get(front.origin, `${API}/openapi.json`, from('203.0.113.7'));
    expect(refused.status).toBe(429);
    const body = JSON.parse(refused.bytes.toString('utf8'));
    expect(body).toMatchObject({ code: 'rate_limited', correlationId: refused.headers['x-correlation-id'] });
    expect(typeof body.message).toBe('string');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['x-content-type-options']).toBe('nosniff');
    // A conditional request counts too: the quota is of requests, not of bytes.
    expect((await get(front.origin, `${API}/docs`, { ...from('203.0.113.7'), 'If-None-Match': '*' })).status).toBe(429);
    // Another address, an IPv6 /64 of its own, health probes and a partner with a token.
    expect((await get(front.origin, `${API}/openapi.json`, from('203.0.113.8'))).status).toBe(200);
    for (let call = 0; call < 3; call += 1)
      expect((await get(front.origin, `${API}/openapi.json`, from(`2001:db8:0:1::${call + 1}`))).status).toBe(200);
    expect((await get(front.origin, `${API}/openapi.json`, from('2001:db8:0:1::99'))).status).toBe(429);
    expect((await get(front.origin, `${API}/openapi.json`, from('2001:db8:0:2::1'))).status).toBe(200);
    for (let call = 0; call < 5; call += 1) expect((await get(front.origin, '/health/live', from('203.0.113.7'))).status).toBe(200);
    expect((await asPartner(proxied, world.agency).list().set('X-Forwarded-For', '203.0.113.7')).status).toBe(200);
  });
});

test('When the anonymous quota is spent, then the 429 is declared by the document: the error body in JSON', async () => {
  const capped = await world.anotherApp({ ANONYMOUS_RATE_LIMIT_REQUESTS: '1' });
  const target = { app: capped.app };
  expect((await asPartner(target, { auth: {} }).openApiJson()).status).toBe(200);
  expectErrorBody(await asPartner(target, { auth: {} }).openApiJson(), 429, 'rate_limited');
});
