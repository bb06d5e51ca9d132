/**
 * What the pipeline reads from the raw request before validation: the media type and JSON of the
 * body, and the declared query parameters. Text PostgreSQL cannot store is refused here.
 */
import type { Request } from 'express';
import type { OpenApiDocument } from '../contract/load-contract';
import { ApiError, BadRequest, ValidationFailed } from '../errors';
import type { DeclaredQueryParameters } from './operation-plan';
import { unstorableTextPaths } from './storable-text';

export type RawQuery = Record<string, string | string[] | undefined>;

const JSON_TYPES = ['application/json', 'application/merge-patch+json'];

/** Request media types per operationId, as the document declares them. */
export function declaredMediaTypes(document: OpenApiDocument): Map<string, string[]> {
  const types = new Map<string, string[]>();
  for (const pathItem of Object.values(document.paths)) {
    for (const operation of Object.values(pathItem) as Array<{ operationId?: string; requestBody?: { content?: object } }>) {
      if (operation?.operationId) types.set(operation.operationId, Object.keys(operation.requestBody?.content ?? {}));
    }
  }
  return types;
}

/**
 * Query parameters the operation does not declare are ignored (as the contract says), so that a
 * cache-busting or tracking parameter never turns a read into an error. Declared text values that
 * PostgreSQL cannot store are refused with the other validation problems.
 */
export function declaredQuery(declared: DeclaredQueryParameters, query: RawQuery): RawQuery {
  const kept: RawQuery = {};
  // A list parameter given once is still a list (as declared), so that handlers, paging links and
  // the validator see one shape.
  for (const [name, value] of Object.entries(query))
    if (declared.names.has(name) && value !== undefined) kept[name] = declared.lists.has(name) && typeof value === 'string' ? [value] : value;
  const unstorable = unstorableTextPaths(kept).map((path) => `query.${path}: contains NUL or an unpaired surrogate`);
  if (unstorable.length > 0) throw new ValidationFailed(unstorable);
  return kept;
}

/** Checks the media type against the operation's declared ones (415) and parses JSON (400 malformed_json). */
export function parseBody(declared: string[], req: Request): unknown {
  const raw = Buffer.isBuffer(req.body) ? req.body : undefined;
  if (declared.length === 0 || raw === undefined || raw.length === 0) return undefined;
  const mediaType = (req.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (!declared.includes(mediaType)) {
    throw new ApiError(415, 'unsupported_media_type', `The request body must be sent as ${declared.join(' or ')}.`, [
      `Content-Type: must be ${declared.join(' or ')}`,
    ]);
  }
  if (!JSON_TYPES.includes(mediaType)) return raw.toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw new BadRequest('malformed_json', 'The request body is not valid JSON.', [`body: ${(error as Error).message}`]);
  }
  const unstorable = unstorableTextPaths(body);
  if (unstorable.length > 0) {
    throw new ValidationFailed(unstorable.slice(0, 50).map((path) => `${path}: contains NUL or an unpaired surrogate, which cannot be stored`));
  }
  return body;
}
