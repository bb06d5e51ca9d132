/**
 * PostgreSQL text cannot hold U+0000, and an unpaired UTF-16 surrogate has no UTF-8 form (it would
 * be silently replaced). Request bodies with either are refused up front, naming each field.
 */
import { cutText, FIELD_NAME_CHARS } from '../validation/bounded-text';

// NUL is the point of this pattern.
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const MAX_REPORTED = 50;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');

/** `text` with what PostgreSQL cannot store replaced by U+FFFD (a request log line keeps what a partner sent in a path). */
export function storableText(text: string): string {
  return UNSTORABLE.test(text) ? text.replace(UNSTORABLE_ALL, '\uFFFD') : text;
}

/** Paths of the strings (values or keys) that cannot be stored. Iterative: bodies may nest deeply. */
export function unstorableTextPaths(root: unknown): string[] {
  const found: string[] = [];
  const pending: Array<{ value: unknown; path: string }> = [{ value: root, path: '' }];
  while (pending.length > 0 && found.length < MAX_REPORTED) {
    const { value, path } = pending.pop()!;
    if (typeof value === 'string') {
      if (UNSTORABLE.test(value)) found.push(path || 'body');
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => pending.push({ value: item, path: `${path}[${index}]` }));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        const name = cutText(key, FIELD_NAME_CHARS);
        const itemPath = path ? `${path}.${name}` : name;
        if (UNSTORABLE.test(key)) found.push(itemPath.replace(new RegExp(UNSTORABLE.source, 'g'), '?'));
        pending.push({ value: item, path: itemPath });
      }
    }
  }
  return found;
}
