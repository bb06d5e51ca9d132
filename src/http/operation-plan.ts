/**
 * What the pipeline needs to know of each operation, read once from the dereferenced document at
 * start-up: whether it is a write (from its HTTP method), its If-Match and If-None-Match
 * declarations, its scopes, its query parameters, and the media type of each response.
 */
import type { Operation } from 'openapi-backend';
import { declaresIfMatch, isWriteMethod, requiresIfMatch } from './registry-check';

export interface OperationPlan {
  operationId: string;
  isWrite: boolean;
  declaresIfMatch: boolean;
  requiresIfMatch: boolean;
  /** A read that answers 304 when If-None-Match names the current version. */
  answersNotModified: boolean;
  /** Each security requirement's oauth2 scopes; meeting any one requirement is enough (OpenAPI). */
  scopeRequirements: string[][];
  /** Issue 37: the same for the console's session (`consoleSession` requirements); undefined when the operation takes no session. */
  sessionScopeRequirements?: string[][];
  /** Response media type per status, when it is not JSON (the published YAML document). */
  textMediaTypes: Map<number, string>;
  query: DeclaredQueryParameters;
}

/** The query parameters an operation declares, and which of them are lists. */
export interface DeclaredQueryParameters {
  names: ReadonlySet<string>;
  lists: ReadonlySet<string>;
}

/** The scopes of each security requirement that names `scheme`. */
function requirementsOf(operation: Operation, scheme: string): string[][] {
  const requirements = (operation.security ?? []) as Array<Record<string, string[]>>;
  return requirements.filter((requirement) => scheme in requirement).map((requirement) => requirement[scheme] ?? []);
}

export function planOf(operation: Operation): OperationPlan {
  const parameters = (operation.parameters ?? []) as Array<{ in?: string; name?: string; schema?: { type?: unknown } }>;
  const query = parameters.filter((p) => p.in === 'query' && p.name !== undefined);
  const responses = (operation.responses ?? {}) as Record<string, { content?: Record<string, unknown> }>;
  const textMediaTypes = new Map<number, string>();
  for (const [status, response] of Object.entries(responses)) {
    const mediaType = Object.keys(response.content ?? {})[0];
    if (mediaType && !mediaType.includes('json')) textMediaTypes.set(Number(status), mediaType);
  }
  return {
    operationId: operation.operationId!,
    isWrite: isWriteMethod(operation.method),
    declaresIfMatch: declaresIfMatch(operation),
    requiresIfMatch: requiresIfMatch(operation),
    answersNotModified: parameters.some((p) => p.in === 'header' && p.name?.toLowerCase() === 'if-none-match') && '304' in responses,
    scopeRequirements: requirementsOf(operation, 'oauth2'),
    ...(requirementsOf(operation, 'consoleSession').length > 0 ? { sessionScopeRequirements: requirementsOf(operation, 'consoleSession') } : {}),
    textMediaTypes,
    query: {
      names: new Set(query.map((p) => p.name!)),
      lists: new Set(query.filter((p) => p.schema?.type === 'array').map((p) => p.name!)),
    },
  };
}
