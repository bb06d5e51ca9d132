/**
 * What a back-office operation's handler works with. Staff reach every agency, so they work on
 * the request's unit of work itself (a write's transaction and the rows it holds,
 * database/unit-of-work.ts) with the caller as an operator; a director's reach is narrowed by the credential functions (directorReach). The
 * registry of openapi/back-office.yaml's operations is typed by its generated `operations`.
 */
import type { Environment } from '../../auth/opaque-secrets';
import type { Principal } from '../../auth/principal';
import type { Queryable } from '../../database/prisma-client';
import type { UnitOfWork } from '../../database/unit-of-work';
import type { operations } from '../../generated/back-office-api';
import { operationRegistry } from '../../http/operation-registry';
import { operatorOf, type Operator } from './operator';
import type { DocumentServices } from '../../documents/document-services';

export interface BackOfficeWork {
  /** The process's document services (issue 35). */
  documents: DocumentServices;
  /** What the domain's writes run on; the pipeline flushes it. */
  unit: UnitOfWork;
  /** The unit's database handle (the write's transaction), for reads and plain statements. */
  db: Queryable;
  environment: Environment;
  /** The caller as a staff member or a director; 403 when its credential is of another kind. */
  operator(kind: 'staff' | 'director', scope: string): Operator;
}

export function backOfficeWork(environment: Environment, documents: DocumentServices) {
  return (unit: UnitOfWork, principal: Principal): BackOfficeWork => ({
    documents,
    unit,
    db: unit.db,
    environment,
    operator: (kind, scope) => operatorOf(principal, kind, scope),
  });
}

export const { defineOperation } = operationRegistry<operations, BackOfficeWork>();

export const SCOPE = {
  review: 'ops:guarantees:review',
  ledger: 'ops:ledger:write',
  admin: 'ops:credentials:admin',
  manage: 'ops:credentials:manage',
} as const;
