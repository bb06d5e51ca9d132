/**
 * The worst case of every answer in bytes, from the contract alone (issue 34 item 1): walks every
 * response of every operation of a document and computes the most bytes of JSON its schema allows
 * (docs/bounds.md, "How the worst case is computed"):
 * - a string: 2 quotes plus its most characters times the most bytes one of them takes. Its most
 *   characters come from `maxLength`, `enum`/`const`, a format of fixed length (FORMAT_LENGTHS) or an
 *   anchored pattern without unbounded repetition (pattern-bound.ts), the least of those present.
 *   A character takes 6 bytes (a control character is written `\u00XX`; nothing takes more)
 *   unless its format (ASCII_FORMATS) or an anchored pattern restricts it to printable ASCII (1 byte, 2 when `"`
 *   or `\` may occur);
 * - a number: its longest decimal form within `minimum`/`maximum`, else 25 bytes (the longest a
 *   JavaScript number is written: `-0.0000012345678901234567`); a boolean 5, null 4;
 * - an object: braces, and for every declared property its quoted name, a colon, its value and a
 *   comma, every property present at once; `additionalProperties` (or `patternProperties`) that
 *   is not `false` must bound both the count (`maxProperties`) and the names (`propertyNames`);
 * - an array: brackets, and `maxItems` times an item and a comma; or, when it declares
 *   `x-max-bytes` (a page the service cuts by size, the event feed), at most that many bytes
 *   between its brackets, its items bounded all the same;
 * - `oneOf`/`anyOf` and a list of types: the largest alternative; `allOf` and keywords beside a
 *   `$ref`: the smallest (a value satisfies all of them); a recursive schema is unbounded.
 * A string, array or object that lacks its bound is named in `unbounded` (`where` plus the path in
 * the answer), and the answer's bytes are then Infinity.
 *
 * A response may declare `x-static-answer: true`: it is one of the service's own files (its
 * published documents, its reference page), the same for every caller and holding nothing stored.
 * Those are listed apart (`staticAnswer`) and not computed.
 *
 * A body of another media type than JSON whose schema is `format: binary` (a document's bytes) is
 * streamed from its store to the socket at the pace the client reads it (send-result.ts): its
 * bytes on the wire are its `maxLength`, but what a process holds for it is at most
 * STREAMED_ANSWER_BYTES. Such answers are listed apart (`streamed`).
 */
import { patternBound } from './pattern-bound';

type Schema = Record<string, unknown>;

export interface AnswerSize {
  /** `operationId status mediaType` */
  where: string;
  operationId: string;
  method: string;
  status: string;
  /** Worst case in bytes; Infinity when something is unbounded. */
  bytes: number;
  /** Where a bound is missing, as `path.in.the.answer: what is missing`. */
  unbounded: string[];
  staticAnswer: boolean;
  /** Streamed bytes (a document download): `bytes` is what goes on the wire, not what is held. */
  streamed: boolean;
}

interface Size {
  bytes: number;
  unbounded: string[];
}

/** Formats whose grammar bounds the length (in characters). */
export const FORMAT_LENGTHS: Record<string, number> = { uuid: 36, date: 10, ipv4: 15, ipv6: 45 };
/**
 * Formats whose grammar (RFC 4122, RFC 3339, RFC 5321's dot-atom as Ajv checks it, RFC 3986, the IP
 * address forms) allows only printable ASCII without `"` or `\`: one byte per character.
 */
export const ASCII_FORMATS = new Set(['uuid', 'date', 'date-time', 'email', 'uri', 'ipv4', 'ipv6']);

/**
 * The budget of one answer: 6 MiB. It holds the specification's page of 200 guarantees at their
 * longest (about 4.8 MiB), and it is the default share of one agency in the answers a process
 * makes at once (ANSWER_BYTES_PER_AGENCY, http/answer-budget.ts), so that any answer can be
 * admitted; two such shares (ANSWER_BYTES_IN_FLIGHT) fit the 96 MB heap of `npm start` beside the
 * service's own working set (docs/bounds.md, "The budget").
 */
export const ANSWER_BUDGET_BYTES = 6 * 1024 * 1024;

/**
 * What a process holds at most for a streamed answer: a stored chunk being written (the PostgreSQL
 * store's chunks are 256 KiB; an object store's reads are smaller) and the one behind it.
 */
export const STREAMED_ANSWER_BYTES = 512 * 1024;

/** A non-JSON body of raw bytes (`format: binary`): streamed, never held whole. */
export function isStreamedBody(mediaType: string, schema: unknown, resolve: (node: unknown) => unknown = (node) => node): boolean {
  const target = resolve(schema);
  return mediaType !== 'application/json' && isObject(target) && target['type'] === 'string' && target['format'] === 'binary';
}

/** The most bytes JSON.stringify writes for a JavaScript number. */
export const NUMBER_BYTES = 25;
/** The most bytes one character of a string takes in JSON (`\u0001`). */
export const CHAR_BYTES = 6;

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
const bounded = (bytes: number): Size => ({ bytes, unbounded: [] });
const missing = (where: string, what: string, at: string): Size => ({ bytes: Infinity, unbounded: [`${where || '(answer)'}: ${what} (${at})`] });

export function answerSizes(document: Schema): AnswerSize[] {
  return walker(document).answers();
}

/** The worst case of one component schema (`#/components/schemas/<name>`), for reports. */
export function componentSize(document: Schema, name: string): number {
  return walker(document).size({ $ref: `#/components/schemas/${name}` }).bytes;
}

/** The worst case in bytes of any schema of `document` (its `$ref`s resolved in it); Infinity when unbounded. */
export function worstCaseOf(document: Schema): (schema: unknown) => number {
  const walk = walker(document);
  return (schema) => walk.size(schema as Schema).bytes;
}

function walker(document: Schema) {
  const resolve = (node: unknown): unknown => {
    let current = node;
    for (let hops = 0; hops < 20 && isObject(current) && typeof current['$ref'] === 'string'; hops++) {
      const ref = current['$ref'] as string;
      if (!ref.startsWith('#/')) throw new Error(`answer-size: external reference ${ref} not supported`);
      current = ref
        .slice(2)
        .split('/')
        .reduce<unknown>((at, key) => (isObject(at) ? at[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), document);
    }
    return current;
  };

  const sizeOf = (node: unknown, where: string, refsOnPath: ReadonlySet<string>, at: string): Size => {
    if (node === true || node === undefined) return missing(where, 'any value (no schema)', at);
    if (!isObject(node)) return missing(where, 'not a schema', at);
    const ref = typeof node['$ref'] === 'string' ? (node['$ref'] as string) : undefined;
    if (ref) {
      if (refsOnPath.has(ref)) return missing(where, `recursive ${ref}`, at);
      const target = sizeOf(resolve(node), where, new Set([...refsOnPath, ref]), ref);
      const { $ref: _ref, ...siblings } = node;
      return constrains(siblings) ? smallest([target, sizeOf(siblings, where, refsOnPath, at)]) : target;
    }
    if ('const' in node) return bounded(jsonBytes(node['const']));
    if (Array.isArray(node['enum'])) return bounded(Math.max(...node['enum'].map(jsonBytes)));
    if (Array.isArray(node['allOf']) && node['unevaluatedProperties'] === false) return closedComposition(node, where, refsOnPath, at);
    const parts: Size[] = [];
    const types = node['type'] === undefined ? impliedTypes(node) : Array.isArray(node['type']) ? node['type'] : [node['type']];
    if (types.length > 0) parts.push(largest(types.map((type) => sizeOfType(node, String(type), where, refsOnPath, at))));
    for (const keyword of ['oneOf', 'anyOf']) {
      const branches = node[keyword];
      if (Array.isArray(branches))
        parts.push(largest(branches.map((branch, index) => sizeOf(branch, where, refsOnPath, `${at}/${keyword}/${index}`))));
    }
    if (Array.isArray(node['allOf'])) {
      parts.push(smallest(node['allOf'].map((branch, index) => sizeOf(branch, where, refsOnPath, `${at}/allOf/${index}`))));
    }
    if (parts.length === 0) return missing(where, 'no type', at);
    return smallest(parts);
  };

  const sizeOfType = (schema: Schema, type: string, where: string, refs: ReadonlySet<string>, at: string): Size => {
    switch (type) {
      case 'null':
        return bounded(4);
      case 'boolean':
        return bounded(5);
      case 'integer':
      case 'number': {
        const limits = [schema['minimum'], schema['maximum'], schema['exclusiveMinimum'], schema['exclusiveMaximum']];
        const low = (limits[0] ?? limits[2]) as number | undefined;
        const high = (limits[1] ?? limits[3]) as number | undefined;
        if (type === 'integer' && typeof low === 'number' && typeof high === 'number') {
          return bounded(Math.max(String(Math.trunc(low)).length, String(Math.trunc(high)).length));
        }
        return bounded(NUMBER_BYTES);
      }
      case 'string':
        return stringSize(schema, where, at);
      case 'array':
        return arraySize(schema, where, refs, at);
      case 'object':
        return objectSize(schema, where, refs, at);
      default:
        return missing(where, `unknown type ${type}`, at);
    }
  };

  const arraySize = (schema: Schema, where: string, refs: ReadonlySet<string>, at: string): Size => {
    const prefix = ((schema['prefixItems'] as unknown[] | undefined) ?? []).map((item, index) =>
      sizeOf(item, `${where}[${index}]`, refs, `${at}/prefixItems/${index}`),
    );
    const rest = schema['items'] === false ? undefined : schema['items'];
    const prefixBytes = total(prefix);
    if (rest === undefined && schema['items'] === false)
      return { bytes: enclosed(prefixBytes.bytes, prefix.length), unbounded: prefixBytes.unbounded };
    const maxItems = schema['maxItems'];
    const item = sizeOf(rest, `${where}[]`, refs, `${at}/items`);
    if (typeof maxItems !== 'number')
      return { bytes: Infinity, unbounded: [...prefixBytes.unbounded, ...missing(where, 'array without maxItems', at).unbounded, ...item.unbounded] };
    const others = Math.max(maxItems - prefix.length, 0);
    const items = enclosed(prefixBytes.bytes + (others === 0 ? 0 : others * item.bytes), prefix.length + others) - 2;
    const declared = schema['x-max-bytes'];
    return {
      bytes: 2 + (typeof declared === 'number' ? Math.min(items, declared) : items),
      unbounded: [...prefixBytes.unbounded, ...(others === 0 ? [] : item.unbounded)],
    };
  };

  const objectSize = (schema: Schema, where: string, refs: ReadonlySet<string>, at: string): Size => {
    const properties = Object.entries((schema['properties'] as Schema | undefined) ?? {}).map(([name, property]) => {
      const value = sizeOf(property, `${where}.${name}`, refs, `${at}/properties/${name}`);
      return { bytes: jsonBytes(name) + 1 + value.bytes, unbounded: value.unbounded };
    });
    const parts = [...properties];
    let members = properties.length;
    const extra = schema['additionalProperties'];
    const patterns = schema['patternProperties'] as Schema | undefined;
    if (extra !== false || (patterns !== undefined && Object.keys(patterns).length > 0)) {
      const maxProperties = schema['maxProperties'];
      const names = sizeOf(
        { type: 'string', ...((schema['propertyNames'] as Schema | undefined) ?? {}) },
        `${where}{name}`,
        refs,
        `${at}/propertyNames`,
      );
      const values = [extra === false ? undefined : extra, ...Object.values(patterns ?? {})]
        .filter((value) => value !== undefined)
        .map((value) => sizeOf(value, `${where}{*}`, refs, `${at}/additionalProperties`));
      if (typeof maxProperties !== 'number') parts.push(missing(where, 'additionalProperties without maxProperties', at));
      else {
        members += maxProperties;
        parts.push({
          bytes: maxProperties * (names.bytes + 1 + largest(values).bytes),
          unbounded: [...names.unbounded, ...largest(values).unbounded],
        });
      }
    }
    const all = total(parts);
    return { bytes: enclosed(all.bytes, members), unbounded: all.unbounded };
  };

  /**
   * `allOf` closed by `unevaluatedProperties: false` (an event: its envelope and its own fields):
   * the properties of every branch together, each bounded by the smallest of its declarations.
   */
  const closedComposition = (schema: Schema, where: string, refs: ReadonlySet<string>, at: string): Size => {
    const declarations = new Map<string, Array<{ schema: unknown; at: string }>>();
    const collect = (node: unknown, nodeAt: string, depth: number): void => {
      const ref = isObject(node) && typeof node['$ref'] === 'string' ? (node['$ref'] as string) : undefined;
      const resolved = resolve(node);
      if (!isObject(resolved) || depth > 10) return;
      const base = ref ?? nodeAt;
      for (const [name, property] of Object.entries((resolved['properties'] as Schema | undefined) ?? {})) {
        declarations.set(name, [...(declarations.get(name) ?? []), { schema: property, at: `${base}/properties/${name}` }]);
      }
      ((resolved['allOf'] as unknown[] | undefined) ?? []).forEach((branch, index) => collect(branch, `${base}/allOf/${index}`, depth + 1));
    };
    collect(schema, at, 0);
    const properties = [...declarations.entries()].map(([name, found]) => {
      const value = smallest(found.map((declaration) => sizeOf(declaration.schema, `${where}.${name}`, refs, declaration.at)));
      return { bytes: jsonBytes(name) + 1 + value.bytes, unbounded: value.unbounded };
    });
    const all = total(properties);
    return { bytes: enclosed(all.bytes, properties.length), unbounded: all.unbounded };
  };

  const answers = (): AnswerSize[] => {
    const found: AnswerSize[] = [];
    for (const pathItem of Object.values((document['paths'] as Schema | undefined) ?? {})) {
      for (const method of METHODS) {
        const operation = resolve((pathItem as Schema)[method]);
        if (!isObject(operation)) continue;
        for (const [status, reference] of Object.entries((operation['responses'] as Schema | undefined) ?? {})) {
          const response = resolve(reference) as Schema | undefined;
          for (const [mediaType, media] of Object.entries((response?.['content'] as Schema | undefined) ?? {})) {
            const where = `${String(operation['operationId'])} ${status} ${mediaType}`;
            const staticAnswer = response?.['x-static-answer'] === true;
            const schema = (media as Schema)['schema'];
            const streamed = isStreamedBody(mediaType, schema, resolve);
            const size = staticAnswer ? bounded(0) : streamed ? rawBytes(resolve(schema), where) : sizeOf(schema, '', new Set(), `${where} schema`);
            found.push({
              where,
              operationId: String(operation['operationId']),
              method,
              status,
              bytes: size.bytes,
              unbounded: size.unbounded,
              staticAnswer,
              streamed,
            });
          }
        }
      }
    }
    return found;
  };
  /** A streamed body's bytes on the wire: its maxLength, each character one byte. */
  const rawBytes = (schema: unknown, where: string): Size =>
    isObject(schema) && typeof schema['maxLength'] === 'number' ? bounded(schema['maxLength']) : missing('', 'binary body without maxLength', where);
  return { answers, size: (schema: Schema) => sizeOf(schema, '', new Set(), ''), resolve };
}

function stringSize(schema: Schema, where: string, at: string): Size {
  const lengths: number[] = [];
  const widths: number[] = [CHAR_BYTES];
  if (typeof schema['maxLength'] === 'number') lengths.push(schema['maxLength']);
  const format = typeof schema['format'] === 'string' ? schema['format'] : undefined;
  if (format !== undefined && FORMAT_LENGTHS[format] !== undefined) lengths.push(FORMAT_LENGTHS[format]);
  if (format !== undefined && ASCII_FORMATS.has(format)) widths.push(1);
  if (typeof schema['pattern'] === 'string') {
    const pattern = patternBound(schema['pattern']);
    if (Number.isFinite(pattern.maxChars)) lengths.push(pattern.maxChars);
    widths.push(pattern.bytesPerChar);
  }
  if (lengths.length === 0) return missing(where, 'string without maxLength', at);
  return bounded(2 + Math.min(...lengths) * Math.min(...widths));
}

/** The types a schema without `type` implies by its keywords. */
function impliedTypes(schema: Schema): string[] {
  if ('properties' in schema || 'additionalProperties' in schema) return ['object'];
  if ('items' in schema || 'prefixItems' in schema) return ['array'];
  if ('maxLength' in schema || 'pattern' in schema || 'format' in schema) return ['string'];
  return [];
}

/** Whether keywords beside a `$ref` constrain the value (not only describe it). */
function constrains(schema: Schema): boolean {
  const describing = new Set(['description', 'summary', 'title', 'examples', 'example', 'deprecated', 'readOnly', 'writeOnly', 'default']);
  return Object.keys(schema).some((key) => !describing.has(key) && !key.startsWith('x-'));
}

/** Brackets or braces around `count` members of `bytes` in all, with the commas between them. */
function enclosed(bytes: number, count: number): number {
  return 2 + bytes + Math.max(count - 1, 0);
}

function largest(sizes: Size[]): Size {
  if (sizes.length === 0) return bounded(0);
  return { bytes: Math.max(...sizes.map((size) => size.bytes)), unbounded: sizes.flatMap((size) => size.unbounded) };
}

function smallest(sizes: Size[]): Size {
  const finite = sizes.filter((size) => Number.isFinite(size.bytes));
  if (finite.length === 0) return { bytes: Infinity, unbounded: sizes.flatMap((size) => size.unbounded) };
  return bounded(Math.min(...finite.map((size) => size.bytes)));
}

function total(sizes: Size[]): Size {
  const unbounded = sizes.flatMap((size) => size.unbounded);
  return { bytes: unbounded.length > 0 ? Infinity : sizes.reduce((sum, size) => sum + size.bytes, 0), unbounded };
}

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
