/**
 * An operation of a document as the table-driven suites send it. What the document says (method,
 * path, access, path parameters, media type, If-Match) is derived from it here; only what it
 * cannot say, a valid query and body, is written by hand (ValidInput). Shared by the operation
 * table and the webhook writes, which cannot import each other (the table excludes the webhook
 * operations that webhook-operations.ts names).
 */
import type { DocumentOperation } from './contract-rules';

/** `webhooks`: scope ri:webhooks:manage (the webhook writes of webhook-operations.ts). */
export type Access = 'public' | 'read' | 'write' | 'financial' | 'webhooks';

export interface OperationEntry {
  operationId: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path template as in the document. */
  path: string;
  access: Access;
  /** The path names a guarantee ({id}). */
  idPath: boolean;
  /** The path names a co-tenant ({cpfCnpj}). */
  coTenantPath: boolean;
  /** Media type of the request body, when the operation takes one. */
  mediaType?: 'application/json' | 'application/merge-patch+json';
  ifMatch: boolean;
  /** Query parameters of a valid request. */
  query?: () => Array<[string, string]>;
  /** Body of a valid request (parsed form). */
  body?: () => unknown;
}

/** What a valid request needs that the document does not give. */
export type ValidInput = Pick<OperationEntry, 'query' | 'body'>;

const METHODS: readonly string[] = ['GET', 'POST', 'PATCH', 'DELETE'] satisfies Array<OperationEntry['method']>;
const MEDIA_TYPES: readonly string[] = ['application/json', 'application/merge-patch+json'] satisfies Array<NonNullable<OperationEntry['mediaType']>>;

/** The token a request needs, from the operation's oauth2 scopes (the scopes the test agencies are given). */
export function accessOf(scopes: string[]): Access {
  if (scopes.length === 0) return 'public';
  if (scopes.includes('ri:financial:read')) return 'financial';
  if (scopes.includes('ri:webhooks:manage')) return 'webhooks';
  return scopes.some((scope) => scope.endsWith(':write')) ? 'write' : 'read';
}

/** The entry of a documented operation; `inputProblems` names the operations it cannot be valid for. */
export function operationEntry(documented: DocumentOperation, input: ValidInput = {}): OperationEntry {
  const mediaType = documented.requestMediaTypes[0] as OperationEntry['mediaType'];
  return {
    operationId: documented.operationId,
    method: documented.method as OperationEntry['method'],
    path: documented.path,
    access: accessOf(documented.scopes),
    idPath: documented.path.includes('{id}'),
    coTenantPath: documented.path.includes('{cpfCnpj}'),
    ...(mediaType ? { mediaType } : {}),
    ifMatch: documented.parameterNames.includes('If-Match'),
    ...input,
  };
}

/**
 * Why some of `operations` cannot be sent validly with `inputs`, one line naming the operation
 * each: a request body, or a required query parameter, without a valid value; a body for an
 * operation that takes none; a method or media type an entry cannot carry; and inputs naming an
 * operation that is not among `operations` (renamed, removed, or tested elsewhere).
 */
export function inputProblems(operations: DocumentOperation[], inputs: Record<string, ValidInput>): string[] {
  const problems = operations.flatMap(({ operationId, method, path, requestMediaTypes, requiredQueryParameters }) => {
    const named = `${operationId} (${method} ${path})`;
    const input = inputs[operationId] ?? {};
    const queried = (input.query?.() ?? []).map(([name]) => name);
    const unqueried = requiredQueryParameters.filter((name) => !queried.includes(name));
    return [
      ...(METHODS.includes(method) ? [] : [`${named}: method ${method} is not one an entry can carry`]),
      ...requestMediaTypes
        .filter((type) => !MEDIA_TYPES.includes(type))
        .map((type) => `${named}: request media type ${type} is not one an entry can carry`),
      ...(requestMediaTypes.length > 0 && !input.body ? [`${named}: takes a request body, and has no valid body in the inputs`] : []),
      ...(requestMediaTypes.length === 0 && input.body ? [`${named}: takes no request body, and has one in the inputs`] : []),
      ...(unqueried.length > 0 ? [`${named}: requires the query parameters ${unqueried.join(', ')}, and the inputs have no valid value`] : []),
    ];
  });
  const unknown = Object.keys(inputs)
    .filter((operationId) => !operations.some((operation) => operation.operationId === operationId))
    .map((operationId) => `${operationId}: has inputs, and is no operation of these (renamed or removed in the document?)`);
  return [...problems, ...unknown];
}
