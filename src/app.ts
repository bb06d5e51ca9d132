/**
 * buildApp: the whole HTTP service as an Express app, without listening (tests use it in-process).
 *   {AUTH_BASE_PATH}/oauth2/token   the OAuth 2.0 token endpoint (openapi/auth.yaml)
 *   {API_BASE_PATH}/...             the partner API (openapi/partner.yaml)
 *   {OPERATIONS_BASE_PATH}/...      the internal operations API (openapi/operations.yaml; back office, issue #5)
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import pinoHttp from 'pino-http';
import { createTokenRouter } from './auth/token-endpoint';
import type { Config } from './config';
import { loadContract } from './contract/load-contract';
import { publishedDocumentHandlers } from './contract/published-document';
import type { Database } from './database/prisma-client';
import { ApiError, NotFound } from './errors';
import { createApiRouter } from './http/api-router';
import { correlationId } from './http/correlation-id';
import { sendError } from './http/error-response';
import type { OperationHandlers } from './http/operation';
import type { Logger } from './logger';
import { partnerHandlers } from './partner-handlers';
import { guaranteeDomainChecks } from './guarantees/domain-checks';
import { createOperationsRouter } from './operations/api/operations-router'; // back office (issue #5)

export interface AppDependencies {
  db: Database;
  config: Config;
  logger: Logger;
  /** Tests: fail any response that the contract does not allow. */
  checkResponses?: boolean;
}

export async function buildApp(deps: AppDependencies): Promise<express.Express> {
  const { config } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false); // ETags are resource versions, set by the handlers
  app.use(correlationId);
  app.use(
    pinoHttp({
      logger: deps.logger,
      genReqId: (req) => (req as Request).correlationId,
      customProps: (req) => ({ correlationId: (req as Request).correlationId }),
      serializers: {
        req: (req: { method: string; url: string }) => ({ method: req.method, url: req.url }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
    }),
  );

  app.use(config.AUTH_BASE_PATH, createTokenRouter(deps.db, config.ENVIRONMENT));
  app.all(`${config.AUTH_BASE_PATH}/oauth2/token`, (_req: Request, _res: Response, next: NextFunction) => {
    next(new ApiError(405, 'method_not_allowed', 'The token endpoint accepts POST only.', undefined, { Allow: 'POST' }));
  });

  const handlers: OperationHandlers = {
    ...partnerHandlers(),
    publicRead: publishedDocumentHandlers({
      environment: config.ENVIRONMENT,
      publicOrigin: config.PUBLIC_ORIGIN,
      apiBasePath: config.API_BASE_PATH,
      authBasePath: config.AUTH_BASE_PATH,
    }),
  };
  app.use(
    config.API_BASE_PATH,
    await createApiRouter({
      db: deps.db,
      environment: config.ENVIRONMENT,
      logger: deps.logger,
      document: loadContract('partner'),
      handlers,
      domainChecks: guaranteeDomainChecks,
      idempotencyRetentionHours: config.IDEMPOTENCY_RETENTION_HOURS,
      publicOrigin: config.PUBLIC_ORIGIN,
      apiBasePath: config.API_BASE_PATH,
      checkResponses: deps.checkResponses,
    }),
  );

  // Back office (issue #5): the internal operations API, its own document and scopes, same pipeline.
  app.use(config.OPERATIONS_BASE_PATH, await createOperationsRouter({ db: deps.db, config, logger: deps.logger, checkResponses: deps.checkResponses }));

  app.use((_req: Request, _res: Response, next: NextFunction) => next(new NotFound('No operation exists at this path.', 'route_not_found')));
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => sendError(req, res, error));
  return app;
}
