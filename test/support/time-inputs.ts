/**
 * Every time-valued input of every operation of the documents (issue 34 item 3), found by walking
 * them: parameters and request-body fields (nested objects and array items, through `$ref`, `oneOf`
 * and `allOf`) whose schema declares `format: date`, `date-time` or `duration`, and the cursor
 * parameters (a string parameter whose description names a `cursor`). A new operation or field of
 * these kinds is found without a line written here.
 */
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

type Json = Record<string, unknown>;

export type TimeKind = 'date' | 'date-time' | 'duration' | 'cursor';

export interface TimeInput {
  /** The document's file name without extension (`partner`, `back-office`...). */
  document: string;
  operationId: string;
  method: string;
  path: string;
  location: 'query' | 'path' | 'header' | 'body';
  /** The parameter's name, or the body field's segments (`[]` for the items of an array). */
  segments: string[];
  kind: TimeKind;
}

export const DOCUMENTS = ['partner', 'back-office', 'auth', 'health'];
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const TIME_FORMATS: readonly string[] = ['date', 'date-time', 'duration'];

export const inputName = (input: TimeInput): string => input.segments.join('.').replace(/\.\[\]/g, '[]');

export function timeInputs(): TimeInput[] {
  return DOCUMENTS.flatMap((name) =>
    inputsOf(name, YAML.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'openapi', `${name}.yaml`), 'utf8'))),
  );
}

function inputsOf(document: string, doc: Json): TimeInput[] {
  const resolve = (node: unknown): Json => {
    let current = node as Json;
    while (current && typeof current['$ref'] === 'string') {
      current = (current['$ref'] as string)
        .replace(/^#\//, '')
        .split('/')
        .reduce<Json>((value, key) => value[key.replace(/~1/g, '/').replace(/~0/g, '~')] as Json, doc);
    }
    return current;
  };
  const found: TimeInput[] = [];
  for (const [pathTemplate, item] of Object.entries(doc['paths'] as Record<string, Json>)) {
    for (const method of METHODS) {
      const operation = item[method] as Json | undefined;
      if (!operation) continue;
      const base = { document, operationId: operation['operationId'] as string, method: method.toUpperCase(), path: pathTemplate };
      const parameters = [...((item['parameters'] as unknown[]) ?? []), ...((operation['parameters'] as unknown[]) ?? [])].map(resolve);
      for (const parameter of parameters) {
        const schema = resolve(parameter['schema']);
        const kind =
          kindOf(schema) ?? (schema?.['type'] === 'string' && /`cursor`/.test(String(parameter['description'] ?? '')) ? 'cursor' : undefined);
        if (kind) found.push({ ...base, location: parameter['in'] as TimeInput['location'], segments: [parameter['name'] as string], kind });
      }
      const body = operation['requestBody'] ? resolve(operation['requestBody']) : undefined;
      const schemas = Object.values((body?.['content'] as Record<string, Json> | undefined) ?? {}).map((content) => content['schema']);
      const fields = new Map<string, TimeInput>();
      for (const schema of schemas) {
        walk(schema, [], new Set(), resolve, (segments, kind) => {
          fields.set(segments.join('/'), { ...base, location: 'body', segments, kind });
        });
      }
      found.push(...fields.values());
    }
  }
  return found;
}

function kindOf(schema: Json | undefined): TimeKind | undefined {
  const format = schema?.['format'];
  return typeof format === 'string' && TIME_FORMATS.includes(format) ? (format as TimeKind) : undefined;
}

function walk(
  node: unknown,
  segments: string[],
  seen: Set<Json>,
  resolve: (node: unknown) => Json,
  found: (segments: string[], kind: TimeKind) => void,
) {
  const schema = resolve(node);
  if (!schema || typeof schema !== 'object' || seen.has(schema)) return;
  const kind = kindOf(schema);
  if (kind && segments.length > 0) found(segments, kind);
  const inner = new Set(seen).add(schema);
  for (const [name, property] of Object.entries((schema['properties'] as Json | undefined) ?? {}))
    walk(property, [...segments, name], inner, resolve, found);
  if (schema['items']) walk(schema['items'], [...segments, '[]'], inner, resolve, found);
  for (const key of ['oneOf', 'anyOf', 'allOf'])
    for (const part of (schema[key] as unknown[] | undefined) ?? []) walk(part, segments, inner, resolve, found);
}

/** A copy of `body` with `value` at `segments` (the first item of an array stands for its items). */
export function withValueAt(body: unknown, segments: string[], value: unknown): unknown {
  if (segments.length === 0) return value;
  const [head, ...rest] = segments;
  if (head === '[]') {
    const items = Array.isArray(body) ? [...body] : [];
    if (items.length === 0) throw new Error('withValueAt: the valid body has no item to put the value in');
    items[0] = withValueAt(items[0], rest, value);
    return items;
  }
  const object = { ...((body ?? {}) as Json) };
  object[head!] = withValueAt(object[head!], rest, value);
  return object;
}
