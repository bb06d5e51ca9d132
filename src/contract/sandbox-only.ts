/**
 * Operations that exist only in the sandbox (sandbox time travel): openapi/partner.yaml marks them,
 * and the tags and component schemas only they use, with `x-sandbox-only: true`, and the prose
 * that describes them (in any description) between `<!-- sandbox-only -->` and
 * `<!-- /sandbox-only -->`. A production deployment routes and publishes the document without
 * them, so such an operation answers there exactly like an unknown path (`404 route_not_found`),
 * and its `openapi.json`, `openapi.yaml` and reference page say nothing of it (issue 34 item 7).
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
  return withoutSandboxProse(document) as OpenApiDocument;
}

/** The marked passages of every text of the document, removed with their markers. */
export const SANDBOX_PROSE = /[ \t]*<!-- sandbox-only -->[\s\S]*?<!-- \/sandbox-only -->[ \t]*\n?/g;

function withoutSandboxProse(value: unknown): unknown {
  if (typeof value === 'string') return value.includes('<!-- sandbox-only -->') ? value.replace(SANDBOX_PROSE, '') : value;
  if (Array.isArray(value)) return value.map(withoutSandboxProse);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withoutSandboxProse(item)]));
  }
  return value;
}
