/**
 * Files for document tests, made here from their magic numbers (no fixtures on disk): a small valid
 * PDF, PNG and JPEG, and bytes that must be refused (HTML, SVG, a ZIP), plus helpers that send a
 * multipart upload the way a partner's tooling does (supertest's `attach`, as `curl -F`).
 */
import { createHash, randomBytes } from 'node:crypto';
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
