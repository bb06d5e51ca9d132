/**
 * The requests of the documents bench (documents-bench.ts): PDFs of an exact size whose bytes a
 * serial number changes, the multipart body that carries one, and plain requests sent whole.
 */
import http from 'node:http';
import { randomUUID } from 'node:crypto';

/** A PDF of exactly `size` bytes whose 16-digit serial sits at `SERIAL_AT`: a new serial makes new bytes. */
const SERIAL_AT = '%PDF-1.4\n% '.length;
export function pdfOf(size: number, serial: number): Buffer {
  const head = Buffer.from(`%PDF-1.4\n% ${String(serial).padStart(16, '0')}\n`);
  const tail = Buffer.from('\n%%EOF\n');
  return Buffer.concat([head, Buffer.alloc(size - head.length - tail.length, 0x20), tail]);
}

/** A multipart body of one `file` part; `fileAt` is where the file's bytes start in it. */
export function multipartOf(file: Buffer): { body: Buffer; fileAt: number; contentType: string } {
  const boundary = `bench-${randomUUID()}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
  );
  return {
    body: Buffer.concat([head, file, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    fileAt: head.length,
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

/** The upload body again with a new serial (new bytes, a new SHA-256), as a load generator's request. */
export function withSerial(template: { body: Buffer; fileAt: number }, serial: number): Buffer {
  const body = Buffer.from(template.body);
  body.write(String(serial).padStart(16, '0'), template.fileAt + SERIAL_AT, 'latin1');
  return body;
}

/** One request, its body written whole; resolves with the status once the answer was read (and dropped). */
export function send(
  origin: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: Buffer,
): Promise<{ status: number; bytes: number }> {
  const url = new URL(origin);
  return new Promise((resolve) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: body ? { ...headers, 'Content-Length': String(body.length) } : headers,
        agent: false,
      },
      (response) => {
        let bytes = 0;
        response.on('data', (chunk: Buffer) => (bytes += chunk.length));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, bytes }));
        response.on('error', () => resolve({ status: 0, bytes }));
      },
    );
    request.on('error', () => resolve({ status: 0, bytes: 0 }));
    request.end(body);
  });
}

export async function postJson(origin: string, path: string, auth: string, contentType: string, body: Buffer): Promise<unknown> {
  const response = await fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { Authorization: auth, 'Content-Type': contentType, 'Idempotency-Key': randomUUID() },
    body,
  });
  if (response.status !== 201) throw new Error(`documents bench: POST ${path} answered ${response.status}: ${await response.text()}`);
  return response.json();
}
