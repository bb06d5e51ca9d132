/**
 * Contract conformance of responses, switched on in tests: the status must be declared for the
 * operation, and the body and headers must match what the document declares for that status.
 * A violation is thrown, so the test that received the response fails. Route-level answers (404 no
 * route, 405) belong to no operation and are not checked here.
 *
 * The validators are compiled per (operation, status) at the first answer of that status, on one
 * Ajv instance per kind, and kept. openapi-backend's own `validateResponse` and
 * `validateResponseHeaders` compile, at an operation's first answer, a body validator for every
 * declared status and four header validators (one per match type) for every status, each set on a
 * new Ajv instance: about sixty compilations for an operation with a dozen statuses, of which a
 * test answer uses two. That was most of the CPU of a test file's first pass over its operations,
 * and what made long story tests slow on a loaded machine. (The documents' schemas hold no cycle,
 * so they are compiled as they are, without openapi-backend's private `decycle` step.)
 */
import type { ValidateFunction } from 'ajv';
import { ValidationContext, type Document, type Operation } from 'openapi-backend';
import type OpenAPIBackend from 'openapi-backend';
import { PreparedBytes, SerializedJson, type HttpResult } from './http-result';

export class ContractViolation extends Error {}

interface DeclaredResponse {
  content?: Record<string, { schema?: object }>;
  headers?: Record<string, { schema?: object; required?: boolean }>;
}

interface StatusValidators {
  declared: DeclaredResponse;
  body?: ValidateFunction;
  headers?: ValidateFunction;
}

export type ResponseCheck = (operation: Operation<Document>, request: string, result: HttpResult, correlationId: string) => void;

/** The response check of an initialised backend; its validators are compiled on first use and kept. */
export function responseChecker(api: OpenAPIBackend): ResponseCheck {
  let bodyAjv: ReturnType<typeof api.validator.getAjv> | undefined;
  let headerAjv: ReturnType<typeof api.validator.getAjv> | undefined;
  const compiled = new Map<string, StatusValidators | null>();

  const validatorsOf = (operation: Operation<Document>, status: number): StatusValidators | null => {
    const key = `${operation.operationId} ${status}`;
    let found = compiled.get(key);
    if (found === undefined) {
      found = compile(operation, status);
      compiled.set(key, found);
    }
    return found;
  };

  const compile = (operation: Operation<Document>, status: number): StatusValidators | null => {
    const responses = (operation.responses ?? {}) as Record<string, DeclaredResponse>;
    // As openapi-backend matches: the status itself, then its class (4XX), then `default`.
    const declared = responses[String(status)] ?? responses[`${Math.floor(status / 100)}XX`] ?? responses['default'];
    if (!declared) return null;
    const validators: StatusValidators = { declared };
    const bodySchema = declared.content?.['application/json']?.schema;
    if (bodySchema) {
      bodyAjv ??= api.validator.getAjv(ValidationContext.Response);
      validators.body = bodyAjv.compile(bodySchema);
    }
    const properties: Record<string, object> = {};
    for (const [name, header] of Object.entries(declared.headers ?? {})) if (header.schema) properties[name.toLowerCase()] = header.schema;
    if (Object.keys(properties).length > 0) {
      // Header values are strings on the wire: coerced to the declared types, as openapi-backend does.
      headerAjv ??= api.validator.getAjv(ValidationContext.ResponseHeaders, { coerceTypes: true });
      validators.headers = headerAjv.compile({ type: 'object', additionalProperties: true, properties });
    }
    return validators;
  };

  return (operation, request, result, correlationId) => {
    const where = `${request} -> ${result.status} (${operation.operationId})`;
    const validators = validatorsOf(operation, result.status);
    if (!validators) {
      throw new ContractViolation(`${where}: status not declared; declared: ${Object.keys(operation.responses ?? {}).join(', ')}`);
    }
    const body = result.body instanceof SerializedJson ? JSON.parse(result.body.text) : result.body;
    // Prepared bytes are the published documents themselves (possibly compressed): their headers are checked.
    if (body !== undefined && !result.contentType && !(body instanceof PreparedBytes) && validators.body && !validators.body(body)) {
      throw new ContractViolation(`${where}: body ${JSON.stringify(validators.body.errors)}`);
    }
    // Set on every answer before any operation runs (correlation-id.ts).
    const headers: Record<string, string> = { 'x-correlation-id': correlationId, 'x-content-type-options': 'nosniff' };
    for (const [name, value] of Object.entries(result.headers ?? {})) headers[name.toLowerCase()] = value;
    if (validators.headers && !validators.headers(headers)) {
      throw new ContractViolation(`${where}: headers ${JSON.stringify(validators.headers.errors)}`);
    }
    const missing = Object.entries(validators.declared.headers ?? {})
      .filter(([name, declaration]) => declaration.required && headers[name.toLowerCase()] === undefined)
      .map(([name]) => name);
    if (missing.length > 0) throw new ContractViolation(`${where}: required headers missing: ${missing.join(', ')}`);
  };
}
