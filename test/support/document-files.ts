/**
 * Files for document tests, made here from their magic numbers (no fixtures on disk): a small valid
 * PDF, PNG and JPEG, and bytes that must be refused (HTML, SVG, a ZIP), plus helpers that send a
 * multipart upload the way a partner's tooling does (supertest's `attach`, as `curl -F`).
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import request from 'supertest';
import type { AppTarget, Caller } from './partner-api';
import { API } from './partner-api';
import { newKey } from './factories';

/** A small PDF whose bytes differ each call (a random comment) unless `seed` is given. */
export function pdfBytes(seed: string = randomBytes(8).toString('hex'), padding = 0): Buffer {
  const body = `%PDF-1.4\n% ${seed}\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n`;
  return Buffer.concat([Buffer.from(body), Buffer.alloc(padding, 0x20), Buffer.from('%%EOF\n')]);
}

/** A 1x1 PNG with a random tEXt chunk (whole chunks: type sniffing walks them). */
export function pngBytes(): Buffer {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const ihdr = Buffer.from([0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1f, 0x15, 0xc4, 0x89]);
  const text = Buffer.from(`Comment\u0000${randomBytes(8).toString('hex')}`, 'latin1');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(text.length);
  const textChunk = Buffer.concat([length, Buffer.from('tEXt'), text, Buffer.alloc(4)]);
  const iend = Buffer.from([0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]);
  return Buffer.concat([signature, ihdr, textChunk, iend]);
}

export function jpegBytes(): Buffer {
  return Buffer.concat([
    Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]),
    randomBytes(64),
    Buffer.from([0xff, 0xd9]),
  ]);
}

export const htmlBytes = () => Buffer.from('<!DOCTYPE html><html><body><script>alert(1)</script></body></html>');
export const svgBytes = () => Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>');
export const zipBytes = () =>
  Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04, 20, 0, 0, 0, 8, 0]), Buffer.alloc(30, 0), Buffer.from('payload.exe')]);

export const sha256Of = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

export interface FilePart {
  bytes: Buffer;
  name: string;
  /** The part's Content-Type (the service ignores it); application/octet-stream by default. */
  type?: string;
  /** The part's field name; `file` by default. */
  field?: string;
}

export interface UploadOptions {
  comment?: string;
  /** Idempotency-Key: fresh by default; null sends none. */
  key?: string | null;
  /** Extra text parts. */
  fields?: Array<[string, string]>;
}

/** POST .../documents (or another multipart operation at `path`) as a partner's tool sends it. */
export function upload(target: AppTarget, who: Caller, path: string, files: FilePart[], options: UploadOptions = {}) {
  let pending = request(target.app).post(path).set(who.auth);
  if (options.key !== null) pending = pending.set('Idempotency-Key', options.key ?? newKey());
  for (const [name, value] of options.fields ?? []) pending = pending.field(name, value);
  if (options.comment !== undefined) pending = pending.field('comment', options.comment);
  for (const file of files) {
    pending = pending.attach(file.field ?? 'file', file.bytes, { filename: file.name, contentType: file.type ?? 'application/octet-stream' });
  }
  return pending;
}

export const documentsPath = (id: number) => `${API}/v1/rental-insurances/${id}/documents`;

/** Reads a download's bytes whole (tests only: documents are small here). */
export function binary(pending: request.Test): request.Test {
  return pending.buffer(true).parse((response, done) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => done(null, Buffer.concat(chunks)));
  });
}

/** An answer read off the wire by `openUpload`. */
export interface UploadAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: { code?: string; details?: string[] } & Record<string, unknown>;
}

/**
 * A multipart upload written by hand on its own connection and left open: the test writes the
 * parts it wants (`part`, raw bytes, `close`), and `answer` settles when the service answers,
 * whether or not the request was finished. An answer that comes while the request is still open
 * is one the service gave without waiting for the rest of the body.
 */
export function openUpload(origin: string, who: Caller, path: string, key: string = newKey()) {
  const boundary = `----upload-${randomBytes(8).toString('hex')}`;
  const url = new URL(origin);
  const outgoing = http.request({
    host: url.hostname,
    port: url.port,
    method: 'POST',
    path,
    agent: false,
    headers: { ...who.auth, 'Idempotency-Key': key, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
  });
  const answer = new Promise<UploadAnswer>((resolve, reject) => {
    outgoing.on('response', (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () =>
        resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }),
      );
      incoming.on('error', reject);
    });
    // Once the service has answered and closed the connection, writing on fails: that is expected.
    outgoing.on('error', reject);
  });
  // Writes are not awaited: a service that stops reading leaves them in the client's buffer.
  const write = (bytes: Buffer) => void outgoing.write(bytes, () => undefined);
  return {
    answer,
    /** A file part's header (its bytes come next, then another part or `close`). */
    fileHeader: (name: string, field = 'file') =>
      write(
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${name}"\r\nContent-Type: application/pdf\r\n\r\n`),
      ),
    write,
    /** The closing boundary (the body may still go on: an epilogue). */
    close: () => write(Buffer.from(`\r\n--${boundary}--\r\n`)),
    /** Ends the request. */
    end: () => outgoing.end(),
    destroy: () => outgoing.destroy(),
  };
}

/** `total` bytes in chunks of `size` (the last one shorter), each a fresh buffer of `fill`. */
export function* chunksOf(total: number, size = 256 * 1024, fill = 0x20): Generator<Buffer> {
  for (let left = total; left > 0; left -= size) yield Buffer.alloc(Math.min(size, left), fill);
}
