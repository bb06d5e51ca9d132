/** An answer as the pipeline sends it: status, headers and body. Handlers never build one. */
import type { Readable } from 'node:stream';

/** A body already serialised: sent as is, so that a replay is byte-for-byte the first response. */
export class SerializedJson {
  constructor(readonly text: string) {}
}

/**
 * A body built once and shared by every answer that sends it (a published document or page, in
 * one of its encodings): written from these bytes, never serialised or copied per request, so a
 * reader that takes its time holds a reference, not a copy.
 */
export class PreparedBytes {
  constructor(
    readonly bytes: Buffer,
    /** The Content-Type header, parameters included. */
    readonly contentType: string,
  ) {}
}

/**
 * A body of bytes sent as a stream (a document download): opened only when the answer is sent with
 * its body (not for HEAD nor 304), so that no answer holds a whole document in memory.
 */
export class StreamedBody {
  constructor(
    readonly contentType: string,
    readonly length: number,
    readonly open: () => Promise<Readable>,
  ) {}
}

export interface HttpResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** The declared media type when the body is not JSON (the published YAML document). */
  contentType?: string;
  /** Writes: what the first response shows beyond the stored body (a new secret, shown once). */
  revealOnce?: (storedBody: unknown) => unknown;
}
