/**
 * What the partner document says, read independently of the service's own router: the operations,
 * their declared statuses, the Error schema, the table of error codes and their statuses, and
 * validators of request bodies. Used by the hostile and isolation suites to judge responses that
 * the in-app contract check does not see (answers produced before an operation is matched).
 */
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

type Json = Record<string, unknown>;

export interface DocumentOperation {
  operationId: string;
  method: string;
  path: string;
  /** Scopes of the oauth2 requirement; empty for public operations. */
  scopes: string[];
  requestMediaTypes: string[];
  declaredStatuses: string[];
  parameterNames: string[];
  /** Query parameters the document marks required (a valid request must give them). */
  requiredQueryParameters: string[];
}

const FILE = path.join(__dirname, '..', '..', 'openapi', 'partner.yaml');
export const partnerDocument = YAML.parse(fs.readFileSync(FILE, 'utf8')) as Json & { paths: Record<string, Record<string, Json>> };

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];

function resolve(node: unknown): Json {
  let current = node as Json;
  while (current && typeof current['$ref'] === 'string') {
    const pointer = (current['$ref'] as string).replace(/^#\//, '').split('/');
    current = pointer.reduce<Json>((value, key) => value[key.replace(/~1/g, '/').replace(/~0/g, '~')] as Json, partnerDocument);
  }
  return current;
}

export const documentOperations: DocumentOperation[] = Object.entries(partnerDocument.paths).flatMap(([pathTemplate, item]) =>
  Object.entries(item)
    .filter(([method]) => HTTP_METHODS.includes(method))
    .map(([method, operation]) => {
      const security = (operation['security'] as Array<Record<string, string[]>> | undefined) ?? (partnerDocument['security'] as never) ?? [];
      const requestBody = operation['requestBody'] ? resolve(operation['requestBody']) : undefined;
      const parameters = ((operation['parameters'] as unknown[] | undefined) ?? []).map((parameter) => resolve(parameter));
      return {
        operationId: operation['operationId'] as string,
        method: method.toUpperCase(),
        path: pathTemplate,
        scopes: security.flatMap((requirement) => requirement['oauth2'] ?? []),
        requestMediaTypes: Object.keys((requestBody?.['content'] as Json | undefined) ?? {}),
        declaredStatuses: Object.keys((operation['responses'] as Json | undefined) ?? {}),
        parameterNames: parameters.map((parameter) => parameter['name'] as string),
        requiredQueryParameters: parameters
          .filter((parameter) => parameter['in'] === 'query' && parameter['required'] === true)
          .map((parameter) => parameter['name'] as string),
      };
    }),
);

export function documentOperation(operationId: string): DocumentOperation {
  const found = documentOperations.find((operation) => operation.operationId === operationId);
  if (!found) throw new Error(`operation ${operationId} is not in openapi/partner.yaml`);
  return found;
}

const errorSchema = (partnerDocument['components'] as Json)['schemas'] as Record<string, Json>;

/** `code` -> HTTP status, read from the table in the Error schema's description. */
export const errorCodeStatus: Record<string, number> = Object.fromEntries(
  [...String(errorSchema['Error']!['description']).matchAll(/^\|\s*`([a-z_]+)`\s*\|\s*(\d{3})\s*\|/gm)].map((match) => [match[1]!, Number(match[2])]),
);

function newAjv(): Ajv2020 {
  // The same dialect and options as the service (src/http/ajv.ts), built here on its own.
  const ajv = new Ajv2020({ strict: false, allErrors: true, multipleOfPrecision: 9 });
  addFormats(ajv);
  ajv.addFormat('int64', { type: 'number', validate: (value: number) => Number.isInteger(value) });
  ajv.addFormat('int32', { type: 'number', validate: (value: number) => Number.isInteger(value) });
  ajv.addFormat('double', { type: 'number', validate: () => true });
  ajv.addFormat('float', { type: 'number', validate: () => true });
  ajv.addSchema({ ...(partnerDocument as object), $id: 'partner' } as never, 'partner');
  return ajv;
}

const ajv = newAjv();
const validateError: ValidateFunction = ajv.compile({ $ref: 'partner#/components/schemas/Error' });
const bodyValidators = new Map<string, ValidateFunction>();

/** Validates a request body against the schema the document declares for the operation's media type. */
export function requestBodyIsValid(operationId: string, body: unknown): boolean {
  let validate = bodyValidators.get(operationId);
  if (!validate) {
    const found = Object.entries(partnerDocument.paths).flatMap(([pathTemplate, item]) =>
      Object.entries(item)
        .filter(([, operation]) => (operation as Json)['operationId'] === operationId)
        .map(([method]) => ({ pathTemplate, method })),
    )[0];
    if (!found) throw new Error(`unknown operation ${operationId}`);
    const requestBody = resolve(partnerDocument.paths[found.pathTemplate]![found.method]!['requestBody']);
    const mediaType = Object.keys(requestBody['content'] as Json)[0]!;
    const escapedPath = found.pathTemplate.replace(/~/g, '~0').replace(/\//g, '~1');
    const escapedType = mediaType.replace(/~/g, '~0').replace(/\//g, '~1');
    validate = ajv.compile({ $ref: `partner#/paths/${escapedPath}/${found.method}/requestBody/content/${escapedType}/schema` });
    bodyValidators.set(operationId, validate);
  }
  return validate(body) === true;
}

export interface ResponseLike {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

const CORRELATION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The response is an error in the specification's shape: JSON `Error` body valid against the
 * schema, a code whose documented status is the response's status, and `correlationId` equal to
 * the `X-Correlation-Id` header. Returns a description of the first problem, or null.
 */
export function errorBodyProblem(response: ResponseLike): string | null {
  const contentType = String(response.headers['content-type'] ?? '');
  if (!/^application\/json\b/.test(contentType))
    return `content-type is ${JSON.stringify(contentType)}, body ${JSON.stringify(response.text.slice(0, 200))}`;
  let body: Json;
  try {
    body = JSON.parse(response.text) as Json;
  } catch {
    return `body is not JSON: ${JSON.stringify(response.text.slice(0, 200))}`;
  }
  if (!validateError(body)) return `body does not match the Error schema: ${JSON.stringify(validateError.errors)} in ${response.text.slice(0, 300)}`;
  const documented = errorCodeStatus[body['code'] as string];
  if (documented !== undefined && documented !== response.status)
    return `code ${String(body['code'])} is documented with ${documented}, sent with ${response.status}`;
  if (documented === undefined) return `code ${String(body['code'])} is not in the Error table of the document`;
  const header = response.headers['x-correlation-id'];
  if (typeof header !== 'string' || !CORRELATION_ID.test(header)) return `X-Correlation-Id header ${JSON.stringify(header)} is missing or malformed`;
  if (body['correlationId'] !== header) return `correlationId ${JSON.stringify(body['correlationId'])} differs from the header ${header}`;
  const timestamp = body['timestamp'] as string;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(timestamp) || new Date(timestamp).toISOString() !== timestamp) {
    return `timestamp ${timestamp} is not RFC 3339 UTC with milliseconds`;
  }
  return null;
}
