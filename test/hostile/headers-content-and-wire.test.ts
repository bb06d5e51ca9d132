/**
 * Hostile bodies' envelopes and bytes on the wire, for every operation: Content-Type variants,
 * Content-Encoding lies and gzip bombs, and bytes that Node's client refuses to send (CR, LF, NUL,
 * control characters) written on a raw socket. Every request is a valid one with exactly one part
 * made hostile: it must be refused with a 4xx in the specification's error shape and write nothing.
 */
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { sendableHeaderText } from '../support/hostile-arbitraries';
import { expectRejectedWithoutEffect, useHostileWorld } from '../support/hostile-world';
import { OPERATIONS, type OperationEntry } from '../support/operation-table';
import { validRequest } from '../support/operation-requests';
import { rawSocketRequest } from '../support/raw-http';
import { snapshotDifference, takeSnapshot } from '../support/db-snapshot';

const world = useHostileWorld();

const RUNS = 30;
const withBody = OPERATIONS.filter((entry) => entry.mediaType);

const valid = (entry: OperationEntry) => validRequest(entry, world.target, world.agency.auth.Authorization);

describe.each(withBody.map((entry) => [entry.operationId, entry] as const))('%s: Content-Type and Content-Encoding', (_id, entry) => {
  const token = fc.stringMatching(/^[a-z][a-z0-9.+-]{0,20}$/);
  const mediaType = fc.oneof(
    fc.constantFrom(
      'text/plain',
      'text/json',
      'application/xml',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/octet-stream',
      'application/jsonp',
      'application/json-patch+json',
      'application/problem+json',
      'application/vnd.api+json',
      'json',
      'application/',
      '/json',
      '*/*',
      'application/*',
      ';',
      entry.mediaType === 'application/json' ? 'application/merge-patch+json' : 'application/json',
      entry.mediaType === 'application/json' ? 'application/merge-patch+json; charset=utf-8' : 'application/json; charset=utf-8',
    ),
    fc.tuple(token, token).map(([type, subtype]) => `${type}/${subtype}`),
    fc.tuple(token, token, sendableHeaderText({ maxLength: 20 })).map(([type, subtype, parameter]) => `${type}/${subtype}; ${parameter}`),
  );
  const accepted = (value: string) => value.split(';')[0]!.trim().toLowerCase() === entry.mediaType;

  test('a media type the operation does not declare is 415 unsupported_media_type', async () => {
    await fc.assert(
      fc.asyncProperty(
        mediaType.filter((value) => !accepted(value)),
        async (contentType) => {
          const request = valid(entry);
          request.headers['Content-Type'] = contentType;
          await expectRejectedWithoutEffect(world, request, { status: 415, code: 'unsupported_media_type' });
        },
      ),
      { numRuns: RUNS },
    );
  });

  test('a body without Content-Type is 415', async () => {
    const request = valid(entry);
    delete request.headers['Content-Type'];
    await expectRejectedWithoutEffect(world, request, { status: 415, code: 'unsupported_media_type' });
  });

  test('Content-Encoding that does not match the bytes is a 4xx, never a 5xx', async () => {
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const request = valid(entry);
      request.headers['Content-Encoding'] = encoding;
      // The bytes are plain JSON, not compressed: the body cannot be decoded.
      await expectRejectedWithoutEffect(world, request, { status: [400, 415] });
    }
  });

  test('an unknown Content-Encoding is 415 unsupported_media_type', async () => {
    for (const encoding of ['compress', 'x-unknown', 'gzip, rot13']) {
      const request = valid(entry);
      request.headers['Content-Encoding'] = encoding;
      await expectRejectedWithoutEffect(world, request, { status: 415, code: 'unsupported_media_type' });
    }
  });

  test('a gzip bomb (small on the wire, > 100 KB inflated) is 413 payload_too_large', async () => {
    const request = valid(entry) as { method: string; path: string; headers: Record<string, string>; body?: string | Buffer };
    request.headers['Content-Encoding'] = 'gzip';
    request.body = gzipSync(Buffer.from(`{"comment":"${'a'.repeat(5_000_000)}"}`));
    await expectRejectedWithoutEffect(world, request, { status: 413, code: 'payload_too_large' });
  });
});

describe('Header bytes that a conforming client cannot send (raw socket)', () => {
  const attacks: Array<[string, string]> = [
    ['NUL in Idempotency-Key', 'Idempotency-Key: abc\u0000def'],
    ['control character in a header value', 'X-Note: abc\u0001def'],
    ['bare CR inside X-Correlation-Id', 'X-Correlation-Id: abc\rdef'],
    ['DEL inside If-Match', 'If-Match: W/"1"\u007f'],
    ['obs-fold continuation line', 'X-Correlation-Id: abc\r\n  folded'],
    ['header name with a space', 'Idempotency Key: abc'],
    ['header without a colon', 'NoColonHere'],
  ];

  test.each(attacks)('%s: refused with a 4xx and nothing written', async (_name, line) => {
    const target = world.target;
    const body = JSON.stringify({ comment: 'raw' });
    const bytes =
      `POST /rental-guarantee/v1/rental-insurances/${target.id}/comments HTTP/1.1\r\n` +
      `Host: 127.0.0.1\r\n${world.agency.auth.Authorization ? `Authorization: ${world.agency.auth.Authorization}\r\n` : ''}` +
      `Idempotency-Key: ${randomUUID()}\r\nContent-Type: application/json\r\n${line}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
    const before = await takeSnapshot(world.testApp.db);
    const answer = await rawSocketRequest(world.server.port, Buffer.from(bytes, 'latin1'));
    expect(answer.statusLine).toMatch(/^HTTP\/1\.1 4\d\d /);
    expect(snapshotDifference(before, await takeSnapshot(world.testApp.db))).toEqual([]);
  });

  test('CRLF smuggled into a header value becomes a separate (ignored) header, never a response header', async () => {
    // "X-Correlation-Id: ok\r\nSet-Cookie: x=1" is two header lines on the wire: the service must
    // neither reflect the second one nor treat the request differently.
    const bytes =
      `GET /rental-guarantee/v1/rental-insurances/${world.target.id} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
      `Authorization: ${world.agency.auth.Authorization}\r\nX-Correlation-Id: ok-1\r\nSet-Cookie: injected=1\r\nConnection: close\r\n\r\n`;
    const answer = await rawSocketRequest(world.server.port, bytes);
    expect(answer.statusLine).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer.headers['set-cookie']).toBeUndefined();
    expect(answer.headers['x-correlation-id']).toBe('ok-1');
  });
});

test('the world is unchanged after the whole file', async () => {
  expect(snapshotDifference(world.baseline, await takeSnapshot(world.testApp.db))).toEqual([]);
});
