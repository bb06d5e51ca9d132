/**
 * A `multipart/form-data` request body (RFC 7578), read by the pipeline as a stream with busboy:
 * each file part goes to the store as it arrives (UploadStaging), hashed and measured on the way,
 * and is refused as soon as it passes a limit, before the rest of the request is read. What the
 * handler receives is the parts as the contract names them: text parts as strings, and each binary
 * part as the files it staged (UploadedFile). Which parts exist, which are files and how many each
 * may hold come from the operation's schema in the contract.
 *
 * The bytes of a request are discarded when it ends (`settle`), unless its write kept them: a kept
 * file's staging record is deleted in the write's own transaction, so a failed write, a replay and
 * a refused request leave no bytes behind.
 */
import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';
import type { Request } from 'express';
import busboy from 'busboy';
import { ApiError, BadRequest, ValidationFailed } from '../errors';

/** Where a staged file's bytes are, until a write keeps them or the request discards them. */
export interface StagedBytes {
  key: string;
  store: string;
}

/** A file part as the handler receives it; its staged bytes are not part of the request's fingerprint. */
export class UploadedFile {
  /** Not enumerable: the idempotency fingerprint (canonical JSON) covers what the file is, not where it was staged. */
  declare readonly staged: StagedBytes;

  constructor(
    readonly fileName: string | null,
    readonly contentType: string,
    readonly size: number,
    readonly sha256: string,
    staged: StagedBytes,
  ) {
    Object.defineProperty(this, 'staged', { value: staged, enumerable: false });
  }
}

/** What the pipeline needs to stage uploaded files: implemented by the documents (src/guarantees/documents/upload-staging.ts). */
export interface UploadStaging {
  /** Largest file, and largest whole request, in bytes. */
  fileBytes: number;
  requestBytes: number;
  /**
   * A refusal to give before reading any byte of a caller's upload (its agency's quota of the day
   * is spent), or undefined. Its answer closes the connection: the body is not read.
   */
  refusalBeforeReading(companyId: string): Promise<ApiError | undefined>;
  /** How many leading bytes `typeOf` needs. */
  sniffBytes: number;
  /** The type the leading bytes show, or a refusal (415) naming what they are. */
  typeOf(head: Buffer, part: string): Promise<string>;
  /** The cleaned display name, or a refusal (400). */
  fileName(raw: string, part: string): string | null;
  /** Starts storing one file's bytes for the caller's company. */
  begin(companyId: string): Promise<{ staged: StagedBytes; write(chunk: Buffer): Promise<void>; end(): Promise<void>; abort(): Promise<void> }>;
  /** Deletes the bytes of these staged files that no committed write kept. */
  discard(staged: readonly StagedBytes[]): Promise<void>;
}

/** The parts an operation's multipart schema declares. */
export interface MultipartShape {
  /** Binary parts (arrays of `format: binary`) and how many files each may hold. */
  files: Map<string, number>;
  /** Text parts. */
  texts: Set<string>;
}

export interface MultipartBody {
  /** The parts for the handler: strings, and UploadedFile arrays. */
  body: Record<string, unknown>;
  /** The same parts for the contract's validator: each file stands as a string. */
  validationView: Record<string, unknown>;
  /** Discards the request's staged bytes that no committed write kept. */
  settle(): Promise<void>;
}

const TEXT_PART_BYTES = 16 * 1024;

/** The multipart shape an operation's request body schema declares, or undefined when it declares none. */
export function multipartShapeOf(schema: unknown): MultipartShape | undefined {
  const properties = (schema as { properties?: Record<string, { type?: string; items?: { format?: string } }> } | undefined)?.properties;
  if (!properties) return undefined;
  const shape: MultipartShape = { files: new Map(), texts: new Set() };
  for (const [name, property] of Object.entries(properties)) {
    if (property.type === 'array' && property.items?.format === 'binary') shape.files.set(name, (property as { maxItems?: number }).maxItems ?? 1);
    else shape.texts.add(name);
  }
  return shape;
}

export function isMultipart(req: Request): boolean {
  return (req.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase() === 'multipart/form-data';
}

const malformed = (why: string) =>
  new BadRequest('malformed_multipart', 'The request body is not a valid multipart/form-data body (RFC 7578).', [`body: ${why}`]);
const tooLarge = (detail: string) =>
  new ApiError(413, 'document_too_large', 'The upload is larger than its limits.', [detail], { Connection: 'close' });

/** Reads the request's parts; throws (after discarding what it staged) on the first problem. */
export async function readMultipart(req: Request, shape: MultipartShape, staging: UploadStaging, companyId: string): Promise<MultipartBody> {
  const staged: StagedBytes[] = [];
  const settle = () => staging.discard(staged);
  try {
    const parts = await parseParts(req, shape, staging, companyId, staged);
    const validationView = Object.fromEntries(
      Object.entries(parts).map(([name, value]) => [name, Array.isArray(value) ? value.map(() => 'binary') : value]),
    );
    return { body: parts, validationView, settle };
  } catch (error) {
    // Nothing more of this request is stored; the rest of its body is read and dropped by Node.
    req.unpipe();
    req.resume();
    await settle().catch(() => undefined);
    throw error;
  }
}

function parseParts(
  req: Request,
  shape: MultipartShape,
  staging: UploadStaging,
  companyId: string,
  staged: StagedBytes[],
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        // One byte more than a file may have: busboy hands it over (and then stops the part), so
        // the part fails as its bytes arrive, not when its end comes (which a client may never send).
        limits: { fileSize: staging.fileBytes + 1, fieldSize: TEXT_PART_BYTES, parts: 20, headerPairs: 20 },
        // Browsers and curl send a file name's UTF-8 bytes as they are (RFC 7578 §4.2).
        defParamCharset: 'utf8',
      });
    } catch (error) {
      return reject(malformed((error as Error).message));
    }
    const parts: Record<string, unknown> = {};
    const work: Array<Promise<void>> = [];
    const open = new Set<NodeJS.ReadableStream & { destroy(error?: Error): void }>();
    let failed = false;
    // The first problem ends the request: files still arriving are stopped, and the refusal waits
    // for each to settle, so that every byte it staged is known to the discard that follows.
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      for (const stream of open) stream.destroy(error as Error);
      void Promise.allSettled(work).then(() => reject(error));
    };
    let received = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        received += chunk.length;
        if (received > staging.requestBytes) return done(tooLarge(`body: a request may carry at most ${staging.requestBytes} bytes`));
        done(null, chunk);
      },
    });
    counter.on('error', fail);
    req.on('aborted', () => fail(malformed('the request ended before its last part')));

    const fileCounts = new Map<string, number>();
    parser.on('file', (name, stream, info) => {
      // Parts the parser had already read when the request failed are dropped, never staged.
      if (failed) return void stream.resume();
      const limit = shape.files.get(name);
      if (limit === undefined) return failPart(stream, unknownPart(name, shape));
      const index = fileCounts.get(name) ?? 0;
      if (index >= limit) return failPart(stream, new ValidationFailed([`${name}: at most ${limit} files`]));
      fileCounts.set(name, index + 1);
      const list = (parts[name] as UploadedFile[] | undefined) ?? [];
      parts[name] = list;
      open.add(stream);
      const task = stageFile(stream, `${name}[${index}]`, info.filename, staging, companyId, staged).then((file) => {
        list[index] = file;
      });
      void task.finally(() => open.delete(stream)).catch(() => undefined);
      task.catch(fail);
      work.push(task);
    });
    parser.on('field', (name, value, info) => {
      if (failed) return;
      if (shape.files.has(name)) return fail(new ValidationFailed([`${name}: send each file as a file part, with a filename`]));
      if (!shape.texts.has(name)) return fail(unknownPart(name, shape));
      if (parts[name] !== undefined) return fail(new ValidationFailed([`${name}: at most one part`]));
      if (info.valueTruncated) return fail(new ValidationFailed([`${name}: at most ${TEXT_PART_BYTES} bytes`]));
      parts[name] = value;
    });
    parser.on('partsLimit', () => fail(new ValidationFailed(['body: at most 20 parts'])));
    parser.on('error', (error: Error) => fail(malformed(error.message)));
    parser.on('close', () => {
      Promise.all(work).then(() => {
        if (!failed) resolve(parts);
      }, fail);
    });
    const failPart = (stream: NodeJS.ReadableStream, error: ApiError) => {
      stream.resume();
      fail(error);
    };
    req.pipe(counter).pipe(parser);
  });
}

function unknownPart(name: string, shape: MultipartShape): ValidationFailed {
  const known = [...shape.files.keys(), ...shape.texts].join(', ');
  return new ValidationFailed([`${name.slice(0, 100)}: unknown part (the parts are ${known})`]);
}

/** One file part: its name cleaned, its type sniffed from its first bytes, then every byte hashed and stored. */
async function stageFile(
  stream: NodeJS.ReadableStream & { truncated?: boolean },
  part: string,
  rawName: string | undefined,
  staging: UploadStaging,
  companyId: string,
  staged: StagedBytes[],
): Promise<UploadedFile> {
  const fileName = staging.fileName(rawName ?? '', part);
  const hash = createHash('sha256');
  let size = 0;
  let head: Buffer[] = [];
  let writer: Awaited<ReturnType<UploadStaging['begin']>> | undefined;
  let contentType = '';
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > staging.fileBytes) throw tooLarge(`${part}: a file may have at most ${staging.fileBytes} bytes`);
      hash.update(chunk);
      if (!writer) {
        head.push(chunk);
        if (size < staging.sniffBytes) continue;
        ({ writer, contentType } = await startWriting(Buffer.concat(head)));
        head = [];
      } else {
        await writer.write(chunk);
      }
    }
    // busboy stops a file at its limit and marks it truncated (its last bytes were not given).
    if (stream.truncated) throw tooLarge(`${part}: a file may have at most ${staging.fileBytes} bytes`);
    if (size === 0) throw new ValidationFailed([`${part}: is empty`]);
    if (!writer) ({ writer, contentType } = await startWriting(Buffer.concat(head)));
    await writer.end();
  } catch (error) {
    (stream as NodeJS.ReadableStream).resume();
    await writer?.abort().catch(() => undefined);
    throw error;
  }
  return new UploadedFile(fileName, contentType, size, hash.digest('hex'), writer.staged);

  async function startWriting(first: Buffer) {
    const type = await staging.typeOf(first, part);
    const started = await staging.begin(companyId);
    staged.push(started.staged);
    await started.write(first);
    return { writer: started, contentType: type };
  }
}
