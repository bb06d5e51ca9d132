/**
 * Text the service writes from what a partner chose (a field name echoed in an error, a path
 * parameter in a request log line) is cut to the bound the contract declares for it: JSON Schema's
 * `maxLength` counts characters (code points), so a cut never splits a surrogate pair.
 */
const ELLIPSIS = '…';

/** The most characters of a field's name an error detail quotes (an unknown field's name is the partner's choice). */
export const FIELD_NAME_CHARS = 64;

/** `text` if it has at most `maxChars` characters, else its first `maxChars - 1` and `…`. */
export function cutText(text: string, maxChars: number): string {
  // A string of at most maxChars UTF-16 units has at most maxChars code points: the common case costs one comparison.
  if (text.length <= maxChars) return text;
  const chars = Array.from(text);
  return chars.length <= maxChars ? text : chars.slice(0, maxChars - 1).join('') + ELLIPSIS;
}

const NOT_PRINTABLE_ASCII = /[^\x20-\x7e]/gu;

/**
 * `text` in printable ASCII, cut to `maxChars`: every other character (a control character, a
 * letter with an accent, an emoji) becomes `?`. What a request log line keeps of an error's details:
 * one byte per character in the database and in JSON, whatever the partner sent.
 */
export function printableAscii(text: string, maxChars: number): string {
  return text.replace(NOT_PRINTABLE_ASCII, '?').slice(0, maxChars);
}
