/**
 * The internal operations API (issue #5): openapi/operations.yaml served under OPERATIONS_BASE_PATH
 * through the same router as the partner API (routing and validation from the document, Bearer guard
 * with the operation's scopes, idempotent writes, the spec's error body, contract checks in tests).
 */
import type express from 'express';
import type { Config } from '../../config';
import { loadContract } from '../../contract/load-contract';
import type { Database } from '../../database/prisma-client';
import { createApiRouter } from '../../http/api-router';
import type { Logger } from '../../logger';
import { operationsHandlers } from './handlers';

export interface OperationsRouterDependencies {
  db: Database;
  config: Config;
  logger: Logger;
  checkResponses?: boolean;
}

export function createOperationsRouter(deps: OperationsRouterDependencies): Promise<express.Router> {
  const { config } = deps;
  return createApiRouter({
    db: deps.db,
    environment: config.ENVIRONMENT,
    logger: deps.logger,
    document: loadContract('operations'),
    handlers: operationsHandlers({ environment: config.ENVIRONMENT }),
    idempotencyRetentionHours: config.IDEMPOTENCY_RETENTION_HOURS,
    publicOrigin: config.PUBLIC_ORIGIN,
    apiBasePath: config.OPERATIONS_BASE_PATH,
    checkResponses: deps.checkResponses,
  });
}
