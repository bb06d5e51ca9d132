/**
 * Start-up checks of a registry against its (dereferenced) document. The app refuses to start when
 * an operation has no handler, a handler names no operation, a write would bypass the idempotency
 * pipeline, an operation declaring If-Match has no precondition (or one without it has one), or a
 * public declaration does not match the document's security.
 */
import type { Operation } from 'openapi-backend';
import type { DeclaredOperation } from './operation-registry';

export class RegistryError extends Error {}

const WRITE_METHODS = new Set(['post', 'put', 'patch', 'delete']);

export const isWriteMethod = (method: string): boolean => WRITE_METHODS.has(method.toLowerCase());

interface HeaderParameter {
  in?: string;
  name?: string;
  required?: boolean;
}

function headerParameter(operation: Operation, name: string): HeaderParameter | undefined {
  return ((operation.parameters ?? []) as HeaderParameter[]).find((p) => p.in === 'header' && p.name?.toLowerCase() === name.toLowerCase());
}

export const declaresIfMatch = (operation: Operation): boolean => headerParameter(operation, 'If-Match') !== undefined;
export const requiresIfMatch = (operation: Operation): boolean => headerParameter(operation, 'If-Match')?.required === true;

export function checkRegistry<Work>(documentName: string, operations: Operation[], declared: DeclaredOperation<Work>[]): void {
  const problems: string[] = [];
  const byId = new Map<string, DeclaredOperation<Work>>();
  for (const declaration of declared) {
    if (byId.has(declaration.operationId)) problems.push(`${declaration.operationId} is declared twice`);
    byId.set(declaration.operationId, declaration);
  }
  const documentIds = new Set(operations.map((operation) => operation.operationId));
  for (const id of byId.keys()) {
    if (!documentIds.has(id)) problems.push(`a handler is declared for ${id}, which ${documentName} does not define`);
  }
  for (const operation of operations) {
    const id = operation.operationId ?? `${operation.method.toUpperCase()} ${operation.path}`;
    const declaration = operation.operationId ? byId.get(operation.operationId) : undefined;
    if (!declaration) {
      problems.push(`${id} (${operation.method.toUpperCase()} ${operation.path}) has no handler`);
      continue;
    }
    const key = headerParameter(operation, 'Idempotency-Key');
    const isPublic = (operation.security ?? []).length === 0;
    // A public write (the console's sign-in ceremonies, issue 37) has no principal, hence no key
    // space: it is not idempotent by contract, and spends what it uses (a challenge) on first use.
    if (isWriteMethod(operation.method) && !isPublic && key?.required !== true) {
      problems.push(
        `${id} is a ${operation.method.toUpperCase()} whose contract does not require Idempotency-Key: it would bypass the idempotency pipeline`,
      );
    }
    if (!isWriteMethod(operation.method) && key) problems.push(`${id} is a ${operation.method.toUpperCase()} that declares Idempotency-Key`);
    if (declaresIfMatch(operation) && !declaration.precondition) {
      problems.push(`${id} declares If-Match but its handler has no precondition to check it against`);
    }
    if (!declaresIfMatch(operation) && declaration.precondition) problems.push(`${id} has a precondition but its contract declares no If-Match`);
    if (isPublic !== declaration.isPublic) {
      problems.push(
        isPublic ? `${id} has no security requirement: declare it with definePublicOperation` : `${id} requires a token but is declared public`,
      );
    }
  }
  if (problems.length > 0)
    throw new RegistryError(`The operations of ${documentName} do not match their declarations:\n  - ${problems.join('\n  - ')}`);
}
