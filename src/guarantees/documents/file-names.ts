/**
 * A file part's `filename`, as kept for display (never to name anything stored): a path is reduced
 * to its last segment (browsers and tools have sent `C:\fakepath\x.pdf`, and `../` is an attack),
 * bidirectional-override and other invisible formatting characters are removed (they make
 * `invoice‮fdp.exe` read as a PDF), and the name is normalised to NFC. A name with a control
 * character, or longer than 255 bytes in UTF-8, is refused rather than silently changed.
 */
import { ValidationFailed } from '../../errors';

export const FILE_NAME_MAX_BYTES = 255;

// U+061C, U+200E-U+200F (marks), U+202A-U+202E (embeddings, overrides), U+2066-U+2069 (isolates), U+FEFF.
const BIDI_AND_INVISIBLE = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;
// C0 controls (NUL included), DEL, C1 controls; lone surrogates cannot be stored.
// eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
const CONTROL = /[\u0000-\u001f\u007f-\u009f]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The cleaned name, null when none was sent; 400 naming `part` when it cannot be kept. */
export function cleanFileName(raw: string, part: string): string | null {
  if (raw === '') return null;
  if (CONTROL.test(raw)) throw new ValidationFailed([`${part}: the file name contains a control character`]);
  if (Buffer.byteLength(raw) > 4 * FILE_NAME_MAX_BYTES) throw tooLong(part);
  const lastSegment = raw.split(/[\\/]/).pop() ?? '';
  const name = lastSegment.replace(BIDI_AND_INVISIBLE, '').normalize('NFC').trim();
  if (name === '' || name === '.' || name === '..') throw new ValidationFailed([`${part}: the file name is empty once its path is removed`]);
  if (Buffer.byteLength(name) > FILE_NAME_MAX_BYTES) throw tooLong(part);
  return name;
}

const tooLong = (part: string) => new ValidationFailed([`${part}: the file name must be at most ${FILE_NAME_MAX_BYTES} bytes (UTF-8)`]);
