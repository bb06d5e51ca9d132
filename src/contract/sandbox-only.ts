/**
 * Operations that exist only in the sandbox (sandbox time travel): openapi/partner.yaml marks them,
 * and the tags and component schemas only they use, with `x-sandbox-only: true`. A production
 * deployment routes and publishes the document without them, so such an operation answers there
 * exactly like an unknown path (`404 route_not_found`) and its `openapi.json` does not list it.
 */
import type { OpenApiDocument } from './load-contract';

const SANDBOX_ONLY = 'x-sandbox-only';
const marked = (value: unknown) => typeof value === 'object' && value !== null && (value as Record<string, unknown>)[SANDBOX_ONLY] === true;

/** The operationIds of the document's sandbox-only operations. */
export function sandboxOnlyOperationIds(document: OpenApiDocument): Set<string> {
  const ids = new Set<string>();
  for (const pathItem of Object.values(document.paths))
    for (const operation of Object.values(pathItem)) if (marked(operation)) ids.add(String((operation as { operationId?: unknown }).operationId));
  return ids;
}

/** The document as `environment` serves it: unchanged in the sandbox; in production without what is sandbox-only. */
export function forEnvironment(document: OpenApiDocument, environment: 'sandbox' | 'production'): OpenApiDocument {
  if (environment === 'sandbox') return document;
  for (const [path, pathItem] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(pathItem)) if (marked(operation)) delete pathItem[method];
    if (Object.keys(pathItem).length === 0) delete document.paths[path];
  }
  const tags = document['tags'];
  if (Array.isArray(tags)) document['tags'] = tags.filter((tag) => !marked(tag));
  const schemas = (document['components'] as { schemas?: Record<string, unknown> } | undefined)?.schemas ?? {};
  for (const [name, schema] of Object.entries(schemas)) if (marked(schema)) delete schemas[name];
  return document;
}
