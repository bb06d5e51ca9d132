/**
 * Contract conformance of responses, switched on in tests: the status must be declared for the
 * operation, and the body and headers must match what the document declares for that status.
 * A violation is thrown, so the test that received the response fails. Route-level answers (404 no
 * route, 405) belong to no operation and are not checked here.
 */
import { SetMatchType, type Document, type Operation } from 'openapi-backend';
import type OpenAPIBackend from 'openapi-backend';
import { PreparedBytes, SerializedJson, type HttpResult } from './http-result';

export class ContractViolation extends Error {}

export function checkResponseAgainstContract(
  api: OpenAPIBackend,
  operation: Operation<Document>,
  request: string,
  result: HttpResult,
  correlationId: string,
): void {
  const where = `${request} -> ${result.status} (${operation.operationId})`;
  const declared = Object.keys(operation.responses ?? {});
  if (!declared.includes(String(result.status))) {
    throw new ContractViolation(`${where}: status not declared; declared: ${declared.join(', ')}`);
  }
  const body = result.body instanceof SerializedJson ? JSON.parse(result.body.text) : result.body;
  // Prepared bytes are the published documents themselves (possibly compressed): their headers are checked.
  if (body !== undefined && !result.contentType && !(body instanceof PreparedBytes)) {
    const bodyCheck = api.validateResponse(body, operation, result.status);
    if (bodyCheck.errors) throw new ContractViolation(`${where}: body ${JSON.stringify(bodyCheck.errors)}`);
  }
  // Set on every answer before any operation runs (correlation-id.ts).
  const headers: Record<string, string> = { 'x-correlation-id': correlationId, 'x-content-type-options': 'nosniff' };
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name.toLowerCase()] = value;
  // openapi-backend checks header values but treats every declared header as required;
  // presence is checked here against each header's own `required`.
  const headerCheck = api.validateResponseHeaders(headers, operation, { statusCode: result.status, setMatchType: SetMatchType.Any });
  if (headerCheck.errors) throw new ContractViolation(`${where}: headers ${JSON.stringify(headerCheck.errors)}`);
  const declaredHeaders = (operation.responses?.[String(result.status)] as { headers?: Record<string, { required?: boolean }> }).headers ?? {};
  const missing = Object.entries(declaredHeaders)
    .filter(([name, declaration]) => declaration.required && headers[name.toLowerCase()] === undefined)
    .map(([name]) => name);
  if (missing.length > 0) throw new ContractViolation(`${where}: required headers missing: ${missing.join(', ')}`);
}
