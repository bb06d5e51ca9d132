/**
 * Documents of a guarantee: attach files (multipart, read from disk as they are sent), list them,
 * and download one streaming to a file while checking its SHA-256 against the answer's
 * `Repr-Digest`, so that a document is never held whole in memory.
 */
import { createHash } from 'node:crypto';
import { createWriteStream, openAsBlob } from 'node:fs';
import { basename } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Client } from 'openapi-fetch';
import type { components, paths } from './generated/partner-api.js';
import { PartnerClientError } from './errors.js';
import { callHeaders, resultOf, writeHeaders, type ApiResult, type CallOptions, type WriteOptions } from './results.js';
import type { PageOptions } from './rental-insurances.js';

type Schemas = components['schemas'];
export type DocumentInfo = Schemas['Document'];
export type DocumentPage = Schemas['DocumentPage'];

/** A file to attach: a path on disk (streamed from it), or bytes you already hold, with the name to show. */
export type DocumentSource = { path: string; fileName?: string } | { data: Blob | Uint8Array; fileName: string };

export interface AttachOptions extends WriteOptions {
  /** A comment for the history entry. */
  comment?: string;
}

export interface DownloadedDocument {
  path: string;
  size: number;
  /** SHA-256 of the bytes written, hexadecimal; equal to the document's `sha256` (checked). */
  sha256: string;
  contentType: string | null;
}

export function documents({ api }: { api: Client<paths> }) {
  const idOf = (guaranteeId: number) => ({ id: guaranteeId });
  return {
    /** POST .../documents: one to five files (PDF, JPEG, PNG, 10 MB each) and an optional comment; the new history entry. */
    async attachDocuments(
      guaranteeId: number,
      files: readonly DocumentSource[],
      options: AttachOptions = {},
    ): Promise<ApiResult<Schemas['HistoryEntry']>> {
      const form = new FormData();
      for (const file of files) {
        if ('path' in file) form.append('file', await openAsBlob(file.path), file.fileName ?? basename(file.path));
        else form.append('file', file.data instanceof Blob ? file.data : new Blob([new Uint8Array(file.data)]), file.fileName);
      }
      if (options.comment !== undefined) form.append('comment', options.comment);
      const headers = writeHeaders(options);
      return resultOf(
        await api.POST('/v1/rental-insurances/{id}/documents', {
          params: { path: idOf(guaranteeId), header: headers },
          body: form as never,
          // FormData goes as it is: fetch writes the multipart body and its boundary.
          bodySerializer: (body) => body as unknown as FormData,
          signal: options.signal,
        }),
      );
    },

    async listDocuments(guaranteeId: number, options: PageOptions = {}): Promise<ApiResult<DocumentPage>> {
      const { page, pageSize } = options;
      return resultOf(
        await api.GET('/v1/rental-insurances/{id}/documents', {
          params: { path: idOf(guaranteeId), query: { page, pageSize }, header: callHeaders(options) },
          signal: options.signal,
        }),
      );
    },

    /** Streams the document's bytes into `path`, hashing them on the way; throws when they do not match `Repr-Digest`. */
    async downloadDocument(guaranteeId: number, documentId: number, path: string, options: CallOptions = {}): Promise<DownloadedDocument> {
      const outcome = await api.GET('/v1/rental-insurances/{id}/documents/{documentId}', {
        params: { path: { id: guaranteeId, documentId }, header: callHeaders(options) },
        parseAs: 'stream',
        signal: options.signal,
      });
      const { response } = outcome;
      if (!response.ok || !response.body) resultOf(outcome);
      const hash = createHash('sha256');
      let size = 0;
      const measure = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          hash.update(chunk);
          size += chunk.length;
          done(null, chunk);
        },
      });
      await pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), measure, createWriteStream(path));
      const sha256 = hash.digest('hex');
      const digest = /sha-256=:([A-Za-z0-9+/=]+):/.exec(response.headers.get('repr-digest') ?? '')?.[1];
      if (digest && Buffer.from(digest, 'base64').toString('hex') !== sha256) {
        throw new PartnerClientError(`document ${documentId}: the bytes written to ${path} do not match the answer's Repr-Digest`);
      }
      return { path, size, sha256, contentType: response.headers.get('content-type') };
    },
  };
}
