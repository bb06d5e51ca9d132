/**
 * fast-check generators of hostile input. The general generators leave out three classes that
 * have their own properties (so that each class is reported on its own): U+0000 (NUL) and lone
 * UTF-16 surrogates in strings, and malformed percent-encoding in paths.
 */
import fc from 'fast-check';

const NUL = '\u0000';
const hasLoneSurrogate = (text: string) => /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
export const isCleanText = (text: string) => !text.includes(NUL) && !hasLoneSurrogate(text);

/** Characters that the eye does not see or that reverse text: RTL overrides, zero-width, BOM, combining marks. */
const TRICKY = ['\u202e', '\u202d', '\u200f', '\u200e', '\u200b', '\u2060', '\ufeff', '\u0301', '\u0338', '\u00a0', '\u2028', '\u2029'];
const SAMPLES = ['😀', '👨‍👩‍👧‍👦', '🏳️‍🌈', 'مرحبا', 'שלום', '漢字', 'José', 'Ω', '\u{1d54f}', '<script>', "' OR 1=1 --", '%00', '${x}', '../..'];

/** Short strings full of unicode: graphemes, emoji, RTL and invisible characters. */
export const unicodeText = fc
  .array(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 6 }), fc.constantFrom(...TRICKY), fc.constantFrom(...SAMPLES)), { maxLength: 8 })
  .map((parts) => parts.join(''));

/** Strings longer than any limit of the document (the longest is 2000 for `comment`). */
export const hugeText = fc
  .tuple(fc.integer({ min: 2_001, max: 30_000 }), fc.constantFrom('x', '😀', '\u202e', 'ã', 'ab '))
  .map(([length, unit]) => unit.repeat(Math.ceil(length / unit.length)));

/** Nesting far deeper than any schema: arrays or objects, 50 to 1000 levels (deeper ones overflow JSON.stringify in the test worker itself; the 100 KB test below goes deeper with hand-built JSON). */
export const deepNesting = fc.tuple(fc.integer({ min: 50, max: 1_000 }), fc.boolean()).map(([depth, arrays]) => {
  let value: unknown = 'bottom';
  for (let level = 0; level < depth; level += 1) value = arrays ? [value] : { deeper: value };
  // fast-check prints counterexamples recursively: show the nesting in one line instead.
  Object.defineProperty(value, fc.toStringMethod, { value: () => `<${depth} nested ${arrays ? 'arrays' : 'objects'}>`, enumerable: false });
  return value;
});

const numbers = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -1, 1e308, -1e308, 5e-324, 0.001, 999999999.999, 1e21, Number.MAX_SAFE_INTEGER + 2),
);

/** Any JSON value that is hostile somewhere: wrong types, huge strings, unicode, nulls, nesting, containers. */
export const hostileValue: fc.Arbitrary<unknown> = fc
  .oneof(
    { weight: 3, arbitrary: unicodeText },
    { weight: 2, arbitrary: hugeText },
    { weight: 3, arbitrary: numbers },
    { weight: 2, arbitrary: fc.boolean() },
    { weight: 3, arbitrary: fc.constant(null) },
    { weight: 2, arbitrary: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }) },
    { weight: 2, arbitrary: fc.dictionary(unicodeText, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }) },
    { weight: 1, arbitrary: deepNesting },
    { weight: 1, arbitrary: fc.constant({}) },
    { weight: 1, arbitrary: fc.constant([]) },
  )
  .filter((value) => isCleanText(JSON.stringify(value) ?? ''));

/** Names of fields no schema declares, including prototype names and odd characters. */
/** A JSON value that is not an object (a body whose schema is an object refuses it). */
export const notObjectJson: fc.Arbitrary<unknown> = fc
  .oneof(hostileValue, fc.jsonValue({ maxDepth: 3 }))
  .filter((value) => value === null || typeof value !== 'object' || Array.isArray(value));

export const unknownFieldName = fc.oneof(
  fc.stringMatching(/^[a-z][A-Za-z0-9]{0,15}$/).map((name) => `x${name}`),
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    '',
    ' ',
    'tenant.name',
    'id',
    'version',
    'status',
    'companyId',
    '😀',
    '\u202ename',
  ),
);

type Path = Array<string | number>;

/** Every path (to objects, arrays and leaves) inside a JSON value; [] is the root. */
export function pathsOf(value: unknown, prefix: Path = []): Path[] {
  const paths: Path[] = [prefix];
  if (Array.isArray(value)) value.forEach((item, index) => paths.push(...pathsOf(item, [...prefix, index])));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) paths.push(...pathsOf(item, [...prefix, key]));
  }
  return paths;
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  // defineProperty, so that "__proto__" becomes a real own field as JSON.parse would make it.
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

export type Mutation =
  | { kind: 'replace'; pick: number; value: unknown }
  | { kind: 'remove'; pick: number }
  | { kind: 'extra'; pick: number; name: string; value: unknown }
  | { kind: 'wrapInArray'; pick: number };

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('replace' as const), pick: fc.nat(), value: hostileValue }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('extra' as const), pick: fc.nat(), name: unknownFieldName, value: hostileValue }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('wrapInArray' as const), pick: fc.nat() }) },
);

export interface Mutated {
  body: unknown;
  /** The dotted name of the added unknown field, for `extra` with a plain name. */
  unknownField?: string;
  description: string;
}

/** Applies one mutation to a deep copy of `valid`. */
export function applyMutation(valid: unknown, change: Mutation): Mutated {
  const copy = structuredClone(valid) as Record<string, unknown>;
  const all = pathsOf(copy);
  const containers = all.filter((path) => isObject(get(copy, path)));
  const pickFrom = change.kind === 'extra' ? containers : change.kind === 'remove' ? all.filter((path) => path.length > 0) : all;
  const path = pickFrom[change.pick % pickFrom.length]!;
  const description = `${change.kind} at ${displayPath(path) || '(root)'}`;
  if (change.kind === 'extra') {
    setOwn(get(copy, path) as Record<string, unknown>, change.name, change.value);
    const plain = /^[A-Za-z_][A-Za-z0-9_]*$/.test(change.name) && change.name !== '__proto__';
    return {
      body: copy,
      unknownField: plain ? displayPath([...path, change.name]) : undefined,
      description: `${description}: ${JSON.stringify(change.name)}`,
    };
  }
  const replacement = change.kind === 'replace' ? change.value : change.kind === 'wrapInArray' ? [get(copy, path)] : undefined;
  if (path.length === 0) return { body: change.kind === 'remove' ? undefined : replacement, description };
  const parent = get(copy, path.slice(0, -1)) as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (change.kind === 'remove') {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else if (typeof last === 'string') setOwn(parent as Record<string, unknown>, last, replacement);
  else parent[last] = replacement;
  return { body: copy, description };
}

const isObject = (value: unknown) => value !== null && typeof value === 'object' && !Array.isArray(value);
const get = (value: unknown, path: Path): unknown => path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], value);
const displayPath = (path: Path) => path.map((key, index) => (typeof key === 'number' ? `[${key}]` : index === 0 ? key : `.${key}`)).join('');

/** JSON texts that are not JSON: truncations and corruptions of a valid text, and classic mistakes. */
export function malformedJson(validText: string): fc.Arbitrary<string> {
  const truncated = fc.integer({ min: 1, max: Math.max(1, validText.length - 1) }).map((cut) => validText.slice(0, cut));
  const corrupted = fc
    .tuple(
      fc.nat({ max: validText.length }),
      fc.constantFrom('{', '}', '[', ']', ',', ':', '"', "'", '\\', 'NaN', 'undefined', '//', '/*', '\u0001', ',,'),
    )
    .map(([at, inserted]) => validText.slice(0, at) + inserted + validText.slice(at));
  const classic = fc.constantFrom(
    "{'comment': 'single quotes'}",
    '{"comment": "x",}',
    '{"comment" "x"}',
    '{comment: "x"}',
    '{"comment": "x"} trailing',
    '{"comment": "unterminated}',
    '{"comment": "bad \\x escape"}',
    '{"amount": 01}',
    '{"amount": +1}',
    '{"amount": .5}',
    '{"amount": Infinity}',
    'True',
    'undefined',
    '[1, 2',
    '{"a": [}',
    '{"a": "tab\tinside"}',
    '"\\u12"',
    '{"a":1}{"b":2}',
    '\u0000',
  );
  return fc.oneof(truncated, corrupted, classic).filter((text) => {
    try {
      JSON.parse(text);
      return false;
    } catch {
      return text.length > 0;
    }
  });
}

/** Header values Node's client will send (tab, printable ASCII and Latin-1), never a valid entity-tag list. */
export const sendableHeaderText = (options: { minLength?: number; maxLength?: number } = {}) =>
  fc.string({
    unit: fc.oneof(
      { weight: 20, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)) },
      { weight: 1, arbitrary: fc.constantFrom('\t', 'é', 'ÿ', '\u0080', '\u00a0') },
    ),
    minLength: options.minLength ?? 0,
    maxLength: options.maxLength ?? 60,
  });
