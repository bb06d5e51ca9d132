/**
 * Validation of a request that was parsed once (pipeline.ts), with the validators openapi-backend
 * compiles from the document: its parameters' validator (path, query and header
 * values, coerced to their declared types in place) and its body's. openapi-backend compiles a
 * body validator only for `application/json`; a body declared only as
 * `application/merge-patch+json` (a partner's patch) gets one here, from the same schema in the
 * same document, with the library's Ajv for bodies.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import type OpenAPIBackend from 'openapi-backend';
import { ValidationContext, type Document, type Operation } from 'openapi-backend';
import type { RawQuery } from './request-parsing';

export interface RequestParts {
  params: Record<string, string>;
  query: RawQuery;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export interface Validated {
  errors: ErrorObject[];
  /** The path and query values as coerced to their declared types. */
  params: Record<string, unknown>;
  query: Record<string, unknown>;
}

const MERGE_PATCH = 'application/merge-patch+json';
const MULTIPART = 'multipart/form-data';
const JSON_TYPES = ['application/json', MERGE_PATCH];

interface DeclaredBody {
  content: Record<string, { schema?: object }>;
  required?: boolean;
}

/**
 * The request validators of an operation of an initialised backend, compiled at the operation's
 * first request and kept (openapi-backend, run with `quick`, compiles lazily too). Compiling every
 * operation's schemas up front is most of the time an app takes to build: each start of the service
 * and of every test file's app paid it for operations it never answers.
 */
export function requestValidators(api: OpenAPIBackend): (operationId: string, multipart?: boolean) => ValidateFunction[] {
  const compiled = new Map<string, ValidateFunction[]>();
  return (operationId, multipart = false) => {
    const cacheKey = `${operationId}${multipart ? ' multipart' : ''}`;
    let validators = compiled.get(cacheKey);
    if (!validators) {
      const operation = api.getOperation(operationId)!;
      const own = api.validator.getRequestValidatorsForOperation(operationId);
      validators = multipart
        ? [...own.filter((validate) => !validatesBody(validate)), ...multipartValidator(api, operation)]
        : [...own, ...mergePatchValidator(api, operation)];
      compiled.set(cacheKey, validators);
    }
    return validators;
  };
}

/** openapi-backend's body validator (its schema's `requestBody` property), compiled from the JSON media type when there is one. */
const validatesBody = (validate: ValidateFunction) =>
  (validate.schema as { properties?: object }).properties !== undefined && 'requestBody' in (validate.schema as { properties: object }).properties;

/**
 * A multipart body is validated against its own schema, binary parts included (openapi-backend
 * compiles a JSON media type's schema when an operation has both, and drops binary parts from
 * `required`); the pipeline gives it each file as a string (multipart-body.ts).
 */
function multipartValidator(api: OpenAPIBackend, operation: Operation<Document>): ValidateFunction[] {
  const body = operation.requestBody as DeclaredBody | undefined;
  const schema = body?.content[MULTIPART]?.schema;
  if (!schema) return [];
  const wrapper = { type: 'object', properties: { requestBody: schema }, required: body.required ? ['requestBody'] : [] };
  return [api.validator.getAjv(ValidationContext.RequestBody).compile(wrapper)];
}

function mergePatchValidator(api: OpenAPIBackend, operation: Operation<Document>): ValidateFunction[] {
  const body = operation.requestBody as DeclaredBody | undefined;
  const schema = body?.content[MERGE_PATCH]?.schema;
  if (!schema || body.content['application/json']) return [];
  // The shape of openapi-backend's own body validator: the body is the `requestBody` property.
  const wrapper = { type: 'object', properties: { requestBody: schema }, required: body.required ? ['requestBody'] : [] };
  return [api.validator.getAjv(ValidationContext.RequestBody).compile(wrapper)];
}

/**
 * Runs an operation's validators on the request's parts, as openapi-backend's validateRequest does
 * but without parsing the request again. The query is the declared one (request-parsing.ts: a
 * single value of a list parameter already a one-item array); the validators coerce copies of the
 * path and query values, and the body is validated when it is JSON (or when the request says it is).
 */
export function validateRequest(validators: ValidateFunction[], parts: RequestParts): Validated {
  const query: Record<string, unknown> = { ...parts.query };
  const params: Record<string, unknown> = { ...parts.params };
  const subject: Record<string, unknown> = { path: params, query, header: parts.headers, cookie: {} };
  const contentType = String([parts.headers['content-type']].flat()[0] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  if ((typeof parts.body === 'object' && parts.body !== null) || JSON_TYPES.includes(contentType)) subject.requestBody = parts.body;
  const errors: ErrorObject[] = [];
  for (const validate of validators) if (!validate(subject)) errors.push(...(validate.errors ?? []));
  return { errors, params, query };
}
