/**
 * Every array of every 2xx answer of a contract document, with the `maxItems` it declares: which
 * operations list stored data, and where their lists are (test/multiprocess/listings-under-heap.test.ts
 * reads each at its largest page and checks each list against its maximum). That every array has
 * its maximum, and every string its own, is answer-size.test.ts's part.
 *
 * JSON Schema keywords that can hold an array are followed: properties, items, prefixItems,
 * additionalProperties, allOf/oneOf/anyOf and local `$ref`s (each reference walked once per path).
 */
type Schema = Record<string, unknown>;

export interface ArrayInAnswer {
  /** `operationId status path.to.array` */
  where: string;
  maxItems: number | undefined;
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

/** Every array in the document's 2xx answers, with its declared maximum (undefined: none). */
export function arraysInAnswers(document: Schema): ArrayInAnswer[] {
  const found: ArrayInAnswer[] = [];
  const resolve = (node: unknown): unknown => {
    let current = node;
    for (let hops = 0; hops < 20 && isObject(current) && typeof current['$ref'] === 'string'; hops++) {
      const ref = current['$ref'] as string;
      if (!ref.startsWith('#/')) throw new Error(`bounded-arrays: external reference ${ref} not supported`);
      current = ref
        .slice(2)
        .split('/')
        .reduce<unknown>((at, key) => (isObject(at) ? at[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), document);
    }
    return current;
  };
  const walk = (node: unknown, where: string, refsOnPath: ReadonlySet<string>): void => {
    if (!isObject(node)) return;
    const ref = typeof node['$ref'] === 'string' ? (node['$ref'] as string) : undefined;
    if (ref && refsOnPath.has(ref)) return; // a recursive schema: its arrays are reported on the first pass
    const refs = ref ? new Set([...refsOnPath, ref]) : refsOnPath;
    const schema = resolve(node);
    if (!isObject(schema)) return;
    const types = Array.isArray(schema['type']) ? schema['type'] : [schema['type']];
    if (types.includes('array') || 'items' in schema || 'prefixItems' in schema) {
      found.push({ where, maxItems: typeof schema['maxItems'] === 'number' ? schema['maxItems'] : undefined });
    }
    for (const [name, child] of Object.entries((schema['properties'] as Schema | undefined) ?? {})) walk(child, `${where}.${name}`, refs);
    if (schema['items'] !== undefined) walk(schema['items'], `${where}[]`, refs);
    for (const [index, child] of ((schema['prefixItems'] as unknown[] | undefined) ?? []).entries()) walk(child, `${where}[${index}]`, refs);
    if (isObject(schema['additionalProperties'])) walk(schema['additionalProperties'], `${where}{*}`, refs);
    for (const keyword of ['allOf', 'oneOf', 'anyOf']) {
      for (const child of (schema[keyword] as unknown[] | undefined) ?? []) walk(child, where, refs);
    }
  };
  for (const pathItem of Object.values((document['paths'] as Schema | undefined) ?? {})) {
    for (const method of METHODS) {
      const operation = resolve((pathItem as Schema)[method]);
      if (!isObject(operation)) continue;
      for (const [status, response] of Object.entries((operation['responses'] as Schema | undefined) ?? {})) {
        if (!status.startsWith('2')) continue;
        const content = (resolve(response) as Schema | undefined)?.['content'];
        for (const [mediaType, media] of Object.entries((content as Schema | undefined) ?? {})) {
          walk((media as Schema)['schema'], `${String(operation['operationId'])} ${status} ${mediaType}`, new Set());
        }
      }
    }
  }
  return found;
}

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
