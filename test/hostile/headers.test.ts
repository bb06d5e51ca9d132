/**
 * Hostile headers, for every operation: Authorization garbage, Idempotency-Key that is missing,
 * too long, or has characters outside `!`..`~`, If-Match garbage, Content-Type variants,
 * Content-Encoding lies, X-Correlation-Id garbage, and bytes that Node's client refuses to send
 * (CR, LF, NUL, control characters) written on a raw socket. Every request is a valid one with
 * exactly one header made hostile: it must be refused with a 4xx in the specification's error
 * shape (code, message, timestamp, correlationId = X-Correlation-Id) and write nothing.
 */
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { sendableHeaderText } from '../support/hostile-arbitraries';
import { expectRejectedWithoutEffect, startHostileWorld, type HostileWorld } from '../support/hostile-world';
import { OPERATIONS, validRequest, type OperationEntry } from '../support/operation-table';
import { rawSocketRequest } from '../support/raw-http';
import { snapshotDifference, takeSnapshot } from '../support/db-snapshot';

let world: HostileWorld;
beforeAll(async () => {
  world = await startHostileWorld();
});
afterAll(() => world.close());

const RUNS = 30;
const secured = OPERATIONS.filter((entry) => entry.access !== 'public');
const writes = OPERATIONS.filter((entry) => entry.method !== 'GET');
const withIfMatch = OPERATIONS.filter((entry) => entry.ifMatch);
const withBody = OPERATIONS.filter((entry) => entry.mediaType);
const WELL_FORMED_CORRELATION = /^[A-Za-z0-9._:-]{1,128}$/;

const valid = (entry: OperationEntry) => validRequest(entry, world.target, world.agency.auth.Authorization);

/** An X-Correlation-Id to send along: none, a well-formed one, or garbage. */
const correlation = fc.oneof(
  fc.constant(undefined),
  fc.stringMatching(/^[A-Za-z0-9._:-]{1,128}$/),
  sendableHeaderText({ minLength: 1, maxLength: 200 }).filter((text) => !WELL_FORMED_CORRELATION.test(text.trim())),
);

function withCorrelation<T extends { headers: Record<string, string> }>(request: T, id: string | undefined): T {
  if (id !== undefined) request.headers['X-Correlation-Id'] = id;
  return request;
}

function expectCorrelationKept(sent: string | undefined, received: string | string[] | undefined): void {
  const trimmed = sent?.trim();
  if (trimmed !== undefined && WELL_FORMED_CORRELATION.test(trimmed)) expect(received).toBe(trimmed);
  else expect(received).toMatch(/^[0-9a-f-]{36}$/);
}

describe.each(secured.map((entry) => [entry.operationId, entry] as const))('%s: Authorization', (_id, entry) => {
  const garbage = fc.oneof(
    sendableHeaderText({ maxLength: 80 }),
    sendableHeaderText({ maxLength: 80 }).map((token) => `Bearer ${token}`),
    fc.stringMatching(/^[A-Za-z0-9._~+/-]{1,64}$/).map((token) => `Bearer sbx_${token}`),
    fc.stringMatching(/^[A-Za-z0-9._~+/-]{1,64}$/).map((token) => `Bearer prd_${token}`),
    fc.constantFrom('Bearer', 'Bearer ', 'bearer', 'Basic dXNlcjpwYXNz', `Bearer ${'a'.repeat(5000)}`, 'Bearer a b', 'Bearer "quoted"'),
    // The real token, damaged: one character changed, truncated, or with the other environment's prefix.
    fc.nat().map((at) => {
      const token = world.agency.token;
      const index = at % token.length;
      return `Bearer ${token.slice(0, index)}${token[index] === 'A' ? 'B' : 'A'}${token.slice(index + 1)}`;
    }),
    fc.nat().map((at) => `Bearer ${world.agency.token.slice(0, at % world.agency.token.length)}`),
    fc.constant(undefined).map(() => `Bearer ${world.agency.token.replace(/^sbx_/, 'prd_')}`),
  );

  test('garbage or damaged tokens are 401 unauthorized with a Bearer challenge', async () => {
    await fc.assert(
      fc.asyncProperty(garbage, correlation, async (authorization, correlationId) => {
        const request = withCorrelation(valid(entry), correlationId);
        request.headers['Authorization'] = authorization;
        const response = await expectRejectedWithoutEffect(world, request, { status: 401, code: 'unauthorized' });
        expect(response.headers['www-authenticate']).toMatch(/^Bearer realm="rental-guarantee"(, error="invalid_token")?$/);
        expectCorrelationKept(correlationId, response.headers['x-correlation-id']);
      }),
      { numRuns: RUNS },
    );
  });

  test('no Authorization header is 401 with the challenge without an error attribute', async () => {
    const request = valid(entry);
    delete request.headers['Authorization'];
    const response = await expectRejectedWithoutEffect(world, request, { status: 401, code: 'unauthorized' });
    expect(response.headers['www-authenticate']).toBe('Bearer realm="rental-guarantee"');
  });
});

describe.each(writes.map((entry) => [entry.operationId, entry] as const))('%s: Idempotency-Key', (_id, entry) => {
  const visible = fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code));
  const invalidKey = fc.oneof(
    // Too long: 256 or more visible characters, bare or quoted.
    fc.string({ unit: visible, minLength: 256, maxLength: 600 }),
    fc.string({ unit: visible, minLength: 256, maxLength: 300 }).map((key) => `"${key.replace(/["\\]/g, 'x')}"`),
    // A character outside ! .. ~ inside the key (leading/trailing blanks would be trimmed by HTTP).
    fc
      .tuple(fc.string({ unit: visible, minLength: 1, maxLength: 40 }), fc.constantFrom(' ', '\t', 'é', 'ÿ', '\u0080', '\u00a0', '  '), fc.string({ unit: visible, minLength: 1, maxLength: 40 }))
      .map(([before, bad, after]) => before + bad + after),
    fc.constantFrom('', '""', '" "', 'a, b', '"a b"'),
  );

  test('a malformed key is 400 idempotency_key_invalid', async () => {
    await fc.assert(
      fc.asyncProperty(invalidKey, correlation, async (key, correlationId) => {
        const request = withCorrelation(valid(entry), correlationId);
        request.headers['Idempotency-Key'] = key;
        const response = await expectRejectedWithoutEffect(world, request, { status: 400, code: 'idempotency_key_invalid' });
        expectCorrelationKept(correlationId, response.headers['x-correlation-id']);
      }),
      { numRuns: RUNS },
    );
  });

  test('a missing key is 400 idempotency_key_required; two key headers are one malformed key', async () => {
    const missing = valid(entry);
    delete missing.headers['Idempotency-Key'];
    await expectRejectedWithoutEffect(world, missing, { status: 400, code: 'idempotency_key_required' });
    const doubled = valid(entry) as { method: string; path: string; headers: Record<string, string | string[]>; body?: string };
    doubled.headers['Idempotency-Key'] = [randomUUID(), randomUUID()];
    await expectRejectedWithoutEffect(world, doubled, { status: 400, code: 'idempotency_key_invalid' });
  });
});

describe.each(withIfMatch.map((entry) => [entry.operationId, entry] as const))('%s: If-Match', (_id, entry) => {
  // Without a double quote a value cannot be a list of entity tags.
  const notEntityTags = sendableHeaderText({ minLength: 1, maxLength: 120 }).filter((text) => !text.includes('"') && text.trim().length > 0);
  const brokenTags = fc.constantFrom('*', 'W/*', ' * ', '7', 'W/7', 'W/"7', '"7', 'w/"7"', 'W /"7"', 'W/"7" W/"8"', '"7";', '"", *', 'W/"1", *');
  // Entity tags by RFC 9110 syntax that name no version the service could have: refused either
  // as not-a-version (400 if_match_invalid) or as not the current version (412).
  const nonVersionTags = fc.constantFrom('W/"-1"', 'W/"1.0"', 'W/"1e3"', 'W/"9999999999"', 'W/""', '"abc"', 'W/"v7"');

  test('a value that is not a list of entity tags (or is *) is 400 if_match_invalid', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(notEntityTags, brokenTags), correlation, async (ifMatch, correlationId) => {
        const request = withCorrelation(valid(entry), correlationId);
        request.headers['If-Match'] = ifMatch;
        await expectRejectedWithoutEffect(world, request, { status: 400, code: 'if_match_invalid' });
      }),
      { numRuns: RUNS },
    );
  });

  test('an entity tag that names no version is 400 if_match_invalid or 412', async () => {
    await fc.assert(
      fc.asyncProperty(nonVersionTags, async (ifMatch) => {
        const request = valid(entry);
        request.headers['If-Match'] = ifMatch;
        await expectRejectedWithoutEffect(world, request, { status: [400, 412], code: ['if_match_invalid', 'precondition_failed'] });
      }),
      { numRuns: 10 },
    );
  });

  test('an empty or over-long (> 1024) If-Match is a 400 (schema limits of the parameter)', async () => {
    for (const ifMatch of ['', `${'W/"1", '.repeat(200)}W/"1"`, 'x'.repeat(5000)]) {
      const request = valid(entry);
      request.headers['If-Match'] = ifMatch;
      await expectRejectedWithoutEffect(world, request, { status: 400, code: ['if_match_invalid', 'validation_failed'] });
    }
  });

  test('missing If-Match is 428; stale versions are 412 carrying the current ETag', async () => {
    const missing = valid(entry);
    delete missing.headers['If-Match'];
    await expectRejectedWithoutEffect(world, missing, { status: 428, code: 'precondition_required' });
    const current = Number(/\d+/.exec(world.target.etag)![0]);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 999_999_999 }).filter((version) => version !== current), { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        async (versions, weak) => {
          const request = valid(entry);
          request.headers['If-Match'] = versions.map((version) => (weak ? `W/"${version}"` : `"${version}"`)).join(', ');
          const response = await expectRejectedWithoutEffect(world, request, { status: 412, code: 'precondition_failed' });
          expect(response.headers['etag']).toBe(world.target.etag);
        },
      ),
      { numRuns: 15 },
    );
  });
});

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
      fc.asyncProperty(mediaType.filter((value) => !accepted(value)), async (contentType) => {
        const request = valid(entry);
        request.headers['Content-Type'] = contentType;
        await expectRejectedWithoutEffect(world, request, { status: 415, code: 'unsupported_media_type' });
      }),
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
    const before = await takeSnapshot(world.t.db);
    const answer = await rawSocketRequest(world.server.port, Buffer.from(bytes, 'latin1'));
    expect(answer.statusLine).toMatch(/^HTTP\/1\.1 4\d\d /);
    expect(snapshotDifference(before, await takeSnapshot(world.t.db))).toEqual([]);
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
  expect(snapshotDifference(world.baseline, await takeSnapshot(world.t.db))).toEqual([]);
});
