/**
 * The published contract (OpenAPI 3.1) and what it allows: for one HTTP exchange, is the status
 * declared for the operation, are the declared headers there and well-formed, is the content type
 * declared and does the body match its schema. Schemas are checked with Ajv's JSON Schema 2020-12
 * dialect (what OpenAPI 3.1 uses), formats included.
 */
import fs from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import YAML from 'yaml';

type Json = Record<string, unknown>;
interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  pointer: string;
  operationId: string | undefined;
  responses: Json;
}

const CONTRACT_ID = 'urn:rental-guarantee:partner-contract';
const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options'];
// ajv-formats is a CommonJS module whose default export arrives wrapped under node16 resolution.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

export interface ExchangeFacts {
  method: string;
  /** Path relative to {base_url}, without the query. */
  path: string;
  status: number;
  headers: Headers;
  bodyText: string;
}

export class Contract {
  readonly version: string;
  readonly title: string;
  readonly #document: Json;
  readonly #operations: Operation[];
  readonly #ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  readonly #compiled = new Map<string, ValidateFunction>();

  constructor(document: Json) {
    this.#document = document;
    const info = (document['info'] ?? {}) as Json;
    this.version = String(info['version'] ?? '?');
    this.title = String(info['title'] ?? 'API');
    addFormats(this.#ajv);
    for (const name of ['int32', 'int64']) this.#ajv.addFormat(name, { type: 'number', validate: (value: number) => Number.isInteger(value) });
    for (const name of ['float', 'double']) this.#ajv.addFormat(name, { type: 'number', validate: () => true });
    // 19.99 is not a multiple of 0.01 in binary floating point; compare the rounded quotient.
    this.#ajv.removeKeyword('multipleOf');
    this.#ajv.addKeyword({ keyword: 'multipleOf', type: 'number', schemaType: 'number', validate: (step: number, value: number) => Number.isInteger(Number((value / step).toPrecision(15))) });
    this.#ajv.addSchema(document, CONTRACT_ID);
    this.#operations = operationsOf(document);
  }

  /** Reads the document from a file or an http(s) URL, YAML or JSON. */
  static async load(location: string): Promise<Contract> {
    let text: string;
    if (/^https?:\/\//.test(location)) {
      const response = await fetch(location, { signal: AbortSignal.timeout(30_000) });
      if (!response.ok) throw new Error(`GET ${location} answered ${response.status}`);
      text = await response.text();
    } else {
      text = fs.readFileSync(location, 'utf8');
    }
    const document = YAML.parse(text) as Json | null;
    if (!document || typeof document['openapi'] !== 'string' || !document['paths']) throw new Error(`${location} is not an OpenAPI document`);
    return new Contract(document);
  }

  operationIds(): string[] {
    return this.#operations.map((operation) => operation.operationId ?? `${operation.method} ${operation.template}`);
  }

  /** Everything about the exchange that the contract does not allow; empty when it conforms. */
  problemsOf(exchange: ExchangeFacts): string[] {
    const operation = this.#operations.find((candidate) => candidate.method === exchange.method.toLowerCase() && candidate.pattern.test(exchange.path));
    if (!operation) return [`no operation of the contract matches ${exchange.method} ${exchange.path}`];
    const declared = declaredStatus(operation.responses, exchange.status);
    if (!declared) return [`status ${exchange.status} is not declared for ${operation.operationId} (declared: ${Object.keys(operation.responses).join(', ')})`];
    const responsePointer = `${operation.pointer}/responses/${escape(declared)}`;
    const [response, pointer] = this.#resolve(operation.responses[declared] as Json, responsePointer);
    return [...this.#headerProblems(response, pointer, exchange.headers), ...this.#bodyProblems(response, pointer, exchange)];
  }

  #headerProblems(response: Json, pointer: string, headers: Headers): string[] {
    const problems: string[] = [];
    for (const [name, declaration] of Object.entries((response['headers'] ?? {}) as Json)) {
      const [header, headerPointer] = this.#resolve(declaration as Json, `${pointer}/headers/${escape(name)}`);
      const value = headers.get(name);
      if (value === null) {
        if (header['required'] === true) problems.push(`header ${name} is required and missing`);
        continue;
      }
      if (!header['schema']) continue;
      const schema = header['schema'] as Json;
      const typed = schema['type'] === 'integer' || schema['type'] === 'number' ? Number(value) : value;
      const validate = this.#validator(`${headerPointer}/schema`);
      if (!validate(typed)) problems.push(`header ${name}: ${JSON.stringify(value)} ${describe(validate)}`);
    }
    return problems;
  }

  #bodyProblems(response: Json, pointer: string, exchange: ExchangeFacts): string[] {
    const content = response['content'] as Json | undefined;
    const mediaType = (exchange.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (!content) return exchange.bodyText === '' ? [] : ['a body was sent, but the contract declares none for this status'];
    if (exchange.bodyText === '' && (exchange.status === 304 || exchange.method === 'HEAD')) return [];
    if (!(mediaType in content)) return [`Content-Type ${mediaType || '(none)'} is not declared (declared: ${Object.keys(content).join(', ')})`];
    const schemaPointer = `${pointer}/content/${escape(mediaType)}/schema`;
    if (!(content[mediaType] as Json)['schema']) return [];
    let body: unknown = exchange.bodyText;
    if (mediaType === 'application/json' || mediaType.endsWith('+json')) {
      try {
        body = JSON.parse(exchange.bodyText);
      } catch {
        return ['the body is not valid JSON'];
      }
    }
    const validate = this.#validator(schemaPointer);
    return validate(body) ? [] : (validate.errors ?? []).slice(0, 10).map((error) => `body${error.instancePath.replace(/\//g, '.')} ${error.message ?? 'is invalid'}${paramsOf(error.params)}`);
  }

  /** Follows a `$ref` (Response or Header Object) to its target and the target's pointer. */
  #resolve(node: Json, pointer: string): [Json, string] {
    let current = node;
    let at = pointer;
    for (let hops = 0; typeof current['$ref'] === 'string' && hops < 10; hops += 1) {
      at = (current['$ref'] as string).replace(/^#/, '');
      current = at
        .split('/')
        .slice(1)
        .reduce<unknown>((parent, key) => (parent as Json | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], this.#document) as Json;
    }
    return [current, at];
  }

  #validator(pointer: string): ValidateFunction {
    let validate = this.#compiled.get(pointer);
    if (!validate) this.#compiled.set(pointer, (validate = this.#ajv.compile({ $ref: `${CONTRACT_ID}#${pointer}` })));
    return validate;
  }
}

function operationsOf(document: Json): Operation[] {
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries((document['paths'] ?? {}) as Record<string, Json>)) {
    // Path parameters match one segment; everything else literally.
    const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
    for (const method of METHODS) {
      const operation = item[method] as Json | undefined;
      if (!operation) continue;
      operations.push({
        method,
        template,
        pattern: new RegExp(`^${source}/?$`),
        pointer: `/paths/${escape(template)}/${method}`,
        operationId: operation['operationId'] as string | undefined,
        responses: (operation['responses'] ?? {}) as Json,
      });
    }
  }
  return operations;
}

/** The responses key that covers the status: exact, then a range (`4XX`), then `default`. */
function declaredStatus(responses: Json, status: number): string | undefined {
  return [String(status), `${String(status)[0]}XX`, 'default'].find((key) => key in responses);
}

const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

function describe(validate: ValidateFunction): string {
  return (validate.errors ?? []).map((error) => `${error.message ?? 'is invalid'}${paramsOf(error.params)}`).join('; ');
}

/** What Ajv's message leaves out: the unknown property's name, the allowed values. */
function paramsOf(params: Record<string, unknown>): string {
  const interesting = params['additionalProperty'] ?? params['allowedValues'];
  return interesting === undefined ? '' : ` (${JSON.stringify(interesting)})`;
}
