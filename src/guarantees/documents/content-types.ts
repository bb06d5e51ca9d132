/**
 * A document's type is decided from its bytes (magic numbers, with the maintained `file-type`
 * library), never from the part's Content-Type or the file name: only PDF, JPEG and PNG are kept.
 */
import { ApiError } from '../../errors';

/** Loaded at the first upload: a process that serves none never holds its signatures (about 1.5 MB of heap). */
const fileType = () => import('file-type');

export const ALLOWED_TYPES = ['application/pdf', 'image/jpeg', 'image/png'] as const;
export type DocumentType = (typeof ALLOWED_TYPES)[number];

/** Bytes file-type reads at most to recognise a type. */
export const SNIFF_BYTES = 4100;

export const EXTENSIONS: Record<DocumentType, string> = { 'application/pdf': 'pdf', 'image/jpeg': 'jpg', 'image/png': 'png' };

/** The type of the leading bytes `head`, or 415 naming what they are. */
export async function documentTypeOf(head: Buffer, part: string): Promise<DocumentType> {
  const detected = await (await fileType()).fileTypeFromBuffer(head);
  const mime = detected?.mime;
  if (mime && (ALLOWED_TYPES as readonly string[]).includes(mime)) return mime as DocumentType;
  const what = mime ?? (looksLikeText(head) ? 'text (for example HTML or SVG)' : 'an unrecognised type');
  throw new ApiError(415, 'document_type_not_allowed', 'Only PDF, JPEG and PNG documents are accepted.', [
    `${part}: the bytes are ${what}; only application/pdf, image/jpeg and image/png are accepted`,
  ]);
}

function looksLikeText(head: Buffer): boolean {
  const sample = head.subarray(0, 512);
  return sample.length > 0 && !sample.includes(0) && Buffer.from(sample.toString('utf8'), 'utf8').equals(sample);
}
