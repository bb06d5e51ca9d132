/**
 * Public pages that cost nothing to serve (issue 34 item 4): a text built once, in its three
 * encodings (identity, gzip, brotli, compressed once and off the event loop), each with a strong
 * entity tag; every request then only chooses one by `Accept-Encoding` (RFC 9110 §12.5.3) and
 * answers `304` when `If-None-Match` names it. The bytes are shared by every answer (PreparedBytes).
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { PreparedBytes, type HttpResult } from './http-result';
import { headerValue } from './header-value';

const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);

type Encoding = 'br' | 'gzip' | 'identity';
/** When both are equally acceptable, the smaller (brotli) wins. */
const COMPRESSED: Encoding[] = ['br', 'gzip'];

/** How long a cache may keep a page before asking again (with its ETag): pages change only with a deployment. */
export const PUBLIC_CACHE_CONTROL = 'public, max-age=300';

export class PreparedRepresentations {
  private constructor(
    private readonly variants: Record<Encoding, { bytes: PreparedBytes; etag: string }>,
    /** Headers every answer of the page carries (a Content-Security-Policy). */
    readonly headers: Record<string, string>,
  ) {}

  /** The page in every encoding; brotli at quality 5 and gzip at level 6: most of the gain for a small part of the time. */
  static async of(text: string, contentType: string, headers: Record<string, string> = {}): Promise<PreparedRepresentations> {
    const identity = Buffer.from(text, 'utf8');
    const [gzipped, brotlied] = await Promise.all([
      gzip(identity, { level: 6 }),
      brotli(identity, {
        params: {
          [zlib.constants.BROTLI_PARAM_QUALITY]: 5,
          [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
          [zlib.constants.BROTLI_PARAM_SIZE_HINT]: identity.length,
        },
      }),
    ]);
    const hash = createHash('sha256').update(identity).digest('base64url');
    const variant = (bytes: Buffer, suffix: string) => ({ bytes: new PreparedBytes(bytes, contentType), etag: `"${hash}${suffix}"` });
    return new PreparedRepresentations({ identity: variant(identity, ''), gzip: variant(gzipped, '-gzip'), br: variant(brotlied, '-br') }, headers);
  }

  /** The answer to a request with these headers: the chosen encoding, or 304 when If-None-Match names it. */
  answer(requestHeaders: Record<string, string | string[] | undefined>): HttpResult {
    const encoding = chosenEncoding(headerValue(requestHeaders, 'accept-encoding'));
    const variant = this.variants[encoding];
    const headers: Record<string, string> = { ETag: variant.etag, 'Cache-Control': PUBLIC_CACHE_CONTROL, Vary: 'Accept-Encoding' };
    if (noneMatch(headerValue(requestHeaders, 'if-none-match'), variant.etag)) return { status: 304, headers };
    if (encoding !== 'identity') headers['Content-Encoding'] = encoding;
    return { status: 200, headers: { ...this.headers, ...headers }, body: variant.bytes };
  }
}

/**
 * The compressed encoding the client accepts with the highest quality (brotli on a tie), else
 * identity: a client that accepts a compression at all gets it (it is acceptable, RFC 9110
 * §12.5.3), whatever quality it gives the uncompressed form.
 */
export function chosenEncoding(acceptEncoding: string | undefined): Encoding {
  if (acceptEncoding === undefined) return 'identity';
  const quality = new Map<string, number>();
  for (const item of acceptEncoding.split(',')) {
    const [coding, ...parameters] = item.split(';').map((part) => part.trim().toLowerCase());
    if (!coding) continue;
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    const value = q === undefined ? 1 : Number(q.slice(2));
    quality.set(coding, Number.isFinite(value) ? value : 0);
  }
  const of = (coding: Encoding) => quality.get(coding) ?? quality.get('*') ?? 0;
  const accepted = COMPRESSED.filter((coding) => of(coding) > 0);
  return accepted.reduce<Encoding>((best, coding) => (best === 'identity' || of(coding) > of(best) ? coding : best), 'identity');
}

/** Whether an If-None-Match field names `etag` (weak comparison, RFC 9110 §13.1.2), or is `*`. */
function noneMatch(field: string | undefined, etag: string): boolean {
  if (field === undefined) return false;
  const opaque = etag.replace(/^W\//, '');
  return field.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === opaque;
  });
}
