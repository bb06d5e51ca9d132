/**
 * buildApp: the whole HTTP service as an Express app, without listening (tests use it in-process).
 *   {AUTH_BASE_PATH}/oauth2/token   the OAuth 2.0 token endpoint (openapi/auth.yaml)
 *   {API_BASE_PATH}/...             the partner API (openapi/partner.yaml)
 *   {BACK_OFFICE_BASE_PATH}/...      the internal back-office API (openapi/back-office.yaml; back office, issue #5)
 *   {CONSOLE_BASE_PATH}/api/...      the console's sessions and passkeys (openapi/console.yaml; issue 37)
 *   {CONSOLE_BASE_PATH}/             the console's pages (directors' integrations, reviewers' desk)
 *   /health/live, /health/ready     the process's health probes (openapi/health.yaml)
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import { BearerAuthenticator } from './auth/bearer-authenticator';
import { CallerAuthenticator } from './auth/caller-authenticator';
import { consoleApi } from './console/console-api';
import { consolePages } from './console/console-pages';
import type { PrincipalCache } from './auth/principal-cache';
import { createTokenRouter } from './auth/token-endpoint';
import type { Config } from './config';
import type { Database } from './database/prisma-client';
import { ApiError, NotFound } from './errors';
import { correlationId } from './http/correlation-id';
import { sendError } from './http/error-response';
import { createApiRouter, type ApiDefinition } from './http/pipeline';
import { accessLog } from './http/access-log';
import { RateLimits, rateLimitPolicy } from './http/rate-limits';
import { AnswerBudget } from './http/answer-budget';
import type { Logger } from './logger';
import { backOfficeApi } from './back-office/api/back-office-api';
import type { BackOfficeWork } from './back-office/api/back-office-work';
import { partnerApi } from './partner/partner-api';
import { healthApi } from './health/health-api';
import { trustIncomingTraceContext } from './tracing/tracing';
import { documentServices } from './guarantees/documents/document-services';
import type { Lifecycle } from './health/lifecycle';
import type { ReplicaReads } from './database/replica-reads';
import type { ReadinessCheck } from './health/readiness';
import type { PartnerWork } from './partner/partner-work';
import type { RequestLogSink } from './http/request-log-line';

export interface AppDependencies {
  db: Database;
  config: Config;
  logger: Logger;
  /** This process's cache of token principals, fed by the revocation listener. */
  principals: PrincipalCache;
  /** Serving or draining (graceful shutdown), and whether this process should get traffic. */
  lifecycle: Lifecycle;
  ready: ReadinessCheck;
  /** Reads the streaming replica may serve (DATABASE_REPLICA_URL); absent: none. */
  replicaReads?: ReplicaReads;
  /** Tests: fail any response that the contract does not allow. */
  checkResponses?: boolean;
  /** Tests: told of every answer of an operation of the documents (the suite's tally). */
  onAnswered?: (document: string, operationId: string, status: number) => void;
  /** Where the partner API's lines of the agencies' request log go (src/request-log/request-log-writer.ts); absent: REQUEST_LOG=off. */
  requestLog?: RequestLogSink;
  /** Tests: the declarations to serve instead of the real ones (a deliberately broken registry). */
  apis?: { partner?: ApiDefinition<PartnerWork>; backOffice?: ApiDefinition<BackOfficeWork> };
}

export async function buildApp(deps: AppDependencies): Promise<express.Express> {
  const { config } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false); // ETags are resource versions, set by the handlers
  // Behind a reverse proxy, the token endpoint counts failures per client address (X-Forwarded-For
  // from the proxies named here), not per proxy: one proxy address would lock out every partner.
  if (config.TRUST_PROXY) trustProxies(app, config.TRUST_PROXY);
  // The same proxies, and only they, may hand a request's trace context on (tracing/tracing.ts).
  trustIncomingTraceContext(app.get('trust proxy fn') as (address: string, hop: number) => boolean);
  app.use(correlationId);
  // RFC 9112 §3.2: an HTTP/1.1 request without Host is 400 (the listener lets it through to say so here).
  app.use((req: Request, _res: Response, next: NextFunction) => {
    if (req.httpVersion === '1.1' && req.headers.host === undefined) {
      next(new ApiError(400, 'bad_request', 'An HTTP/1.1 request must carry a Host header (RFC 9112 §3.2).'));
    } else next();
  });
  // While the process drains, every answer closes its connection, so keep-alive clients reconnect
  // elsewhere: requests already in flight when draining starts get the header then.
  app.use((_req: Request, res: Response, next: NextFunction) => {
    const closeConnection = () => {
      if (!res.headersSent) res.set('Connection', 'close');
    };
    if (deps.lifecycle.draining) closeConnection();
    else res.once('close', deps.lifecycle.onDrain(closeConnection));
    next();
  });
  app.use(accessLog(app, deps.logger));

  // The token endpoint (openapi/auth.yaml's one operation) is outside the pipeline: told here.
  const { onAnswered } = deps;
  if (onAnswered) {
    app.post(`${config.AUTH_BASE_PATH}/oauth2/token`, (_req: Request, res: Response, next: NextFunction) => {
      res.once('finish', () => onAnswered('openapi/auth.yaml', 'issueToken', res.statusCode));
      next();
    });
  }
  app.use(config.AUTH_BASE_PATH, createTokenRouter(deps.db, config));
  app.all(`${config.AUTH_BASE_PATH}/oauth2/token`, (_req: Request, _res: Response, next: NextFunction) => {
    next(new ApiError(405, 'method_not_allowed', 'The token endpoint accepts POST only.', undefined, { Allow: 'POST' }));
  });

  // Bearer tokens everywhere; the console's sessions where an operation's contract accepts them (issue 37).
  const authenticator = new CallerAuthenticator(new BearerAuthenticator(deps.db, config.ENVIRONMENT, deps.principals), {
    db: deps.db,
    environment: config.ENVIRONMENT,
    times: { idleMinutes: config.CONSOLE_SESSION_IDLE_MINUTES, maxHours: config.CONSOLE_SESSION_MAX_HOURS },
  });
  // One set of limits per process, shared by every API: a credential's (and an agency's) quota is one quota.
  const rateLimits = new RateLimits(rateLimitPolicy(config), deps.logger);
  // One answer budget per process, shared by every API: what a process holds is one heap.
  const answerBudget = new AnswerBudget({
    bytes: config.ANSWER_BYTES_IN_FLIGHT,
    perAgency: config.ANSWER_BYTES_PER_AGENCY,
    waitMs: config.DATABASE_POOL_WAIT_MS,
  });
  // One set of document stores per process, shared by both APIs (issue 35).
  const documents = await documentServices(deps.db, config);
  const mount = async <Work>(basePath: string, api: ApiDefinition<Work>, how: MountOptions = {}) =>
    app.use(
      basePath,
      await createApiRouter({
        ...api,
        db: deps.db,
        authenticator,
        logger: deps.logger,
        basePath,
        publicOrigin: config.PUBLIC_ORIGIN,
        idempotency: {
          retentionHours: config.IDEMPOTENCY_RETENTION_HOURS,
          recordsPerCompany: config.IDEMPOTENCY_RECORDS_PER_AGENCY,
          transactionWaitMs: config.DATABASE_POOL_WAIT_MS,
        },
        rateLimits,
        countAnonymous: how.countAnonymous ?? true,
        answerBudget,
        replicaReads: deps.replicaReads,
        checkResponses: deps.checkResponses,
        onAnswered: deps.onAnswered,
        requestLog: how.requestLog,
        consolePagesOnly: how.consolePagesOnly ?? false,
        uploads: documents.staging,
      }),
    );
  // Load balancers probe health without a token, from few addresses: no anonymous quota there.
  await mount('/health', healthApi(deps.ready), { countAnonymous: false });
  // Only the partner API's requests go to the agencies' request log.
  await mount(config.API_BASE_PATH, deps.apis?.partner ?? partnerApi(config, documents), { requestLog: deps.requestLog });
  // The internal back-office API: its own document and scopes, the same pipeline.
  await mount(config.BACK_OFFICE_BASE_PATH, deps.apis?.backOffice ?? backOfficeApi(config, documents, deps.db));
  // Issue 37: the console, its sessions' API (openapi/console.yaml) and its pages.
  await mount(`${config.CONSOLE_BASE_PATH}/api`, consoleApi(config, deps.db), { consolePagesOnly: true });
  app.use(config.CONSOLE_BASE_PATH, consolePages(config.BACK_OFFICE_BASE_PATH));

  app.use((_req: Request, _res: Response, next: NextFunction) => next(new NotFound('No operation exists at this path.', 'route_not_found')));
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => sendError(req, res, error));
  return app;
}

/** How an API is mounted: the agencies' request log (the partner API only), the console's own API, the anonymous quota (not for health probes). */
interface MountOptions {
  requestLog?: RequestLogSink;
  consolePagesOnly?: boolean;
  countAnonymous?: boolean;
}

function trustProxies(app: express.Express, setting: string): void {
  const proxies = setting.split(',').map((entry) => entry.trim());
  try {
    app.set('trust proxy', proxies);
  } catch (error) {
    // Express reads the list at once: a bad entry stops the start-up, named like any bad setting.
    throw new Error(`Invalid configuration:\n  - TRUST_PROXY ${(error as Error).message}`, { cause: error });
  }
}
