/**
 * The one pipeline of an API document (the partner API, the back office): every cross-cutting rule
 * lives here or in the modules it calls, in this order:
 *   route (openapi-backend)  ->  authenticate once, count the request against the credential's
 *   quota (rate-limits.ts) and check the operation's scopes  ->  validate
 *   against the contract  ->  writes: Idempotency-Key claim and one transaction  ->  If-Match
 *   precondition  ->  the declared handler on a company-scoped unit of work  ->  response headers
 *   from its typed result  ->  errors as the specification's body.
 * Authentication comes before validation so that a bad token is 401 whatever else is wrong.
 */
import express, { type Request, type Response } from 'express';
import OpenAPIBackend, { type Context, type Operation } from 'openapi-backend';
import type { BearerAuthenticator } from '../auth/bearer-authenticator';
import { scopeRefusal, type Principal } from '../auth/principal';
import type { OpenApiDocument } from '../contract/load-contract';
import type { Database, Queryable } from '../database/prisma-client';
import { ApiError, NotFound, pathResourceNotFound } from '../errors';
import type { Logger } from '../logger';
import { customizeAjv } from './ajv';
import { useDocumentRouter } from './document-router';
import { errorResult } from './error-response';
import type { HttpResult } from './http-result';
import type { IdempotencyOptions } from './idempotent-write';
import type { DeclaredInput, DeclaredOperation, RequestFacts } from './operation-registry';
import { planOf } from './operation-plan';
import { checkRegistry } from './registry-check';
import { declaredMediaTypes, declaredQuery, headerValue, parseBody, routingCopy, type RawQuery } from './request-parsing';
import { checkResponseAgainstContract } from './response-check';
import { recordAnswer } from '../observability/request-metrics';
import type { RateLimits, RateLimitState } from './rate-limits';
import { runOperation } from './run-operation';
import { sendResult } from './send-result';
import { ruleProblemsBeside, validationError } from './validation-errors';

export interface ApiDefinition<Work> {
  /** For start-up messages, e.g. openapi/partner.yaml. */
  name: string;
  document: OpenApiDocument;
  operations: DeclaredOperation<Work>[];
  /** The unit of work a handler receives, scoped by the principal (its company, for partners). */
  workFor: (db: Queryable, principal: Principal) => Work;
}

export interface PipelineOptions<Work> extends ApiDefinition<Work> {
  db: Database;
  authenticator: BearerAuthenticator;
  logger: Logger;
  basePath: string;
  publicOrigin?: string;
  idempotency: IdempotencyOptions;
  /** Quotas and search limits per credential (absent: none). */
  rateLimits?: RateLimits;
  /** Tests turn this on: a response that the contract does not allow becomes a 500. */
  checkResponses?: boolean;
}

interface ApiRequest {
  method: string;
  path: string;
  query: RawQuery;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

interface Exchange {
  apiRequest: ApiRequest;
  req: Request;
  principal?: Principal;
  operationId?: string;
  /** The RateLimit headers of an authenticated request, added to whatever it is answered. */
  rateLimit?: RateLimitState;
}

const MAX_BODY = '100kb';
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** The router of one API document; throws at start-up when the declarations do not match the document. */
export async function createApiRouter<Work>(options: PipelineOptions<Work>): Promise<express.Router> {
  const api = new OpenAPIBackend({
    definition: routingCopy(options.document),
    strict: true,
    quick: true,
    validate: true,
    coerceTypes: true,
    customizeAjv: customizeAjv as never,
  });
  await api.init();
  useDocumentRouter(api);
  const operations = api.getOperations();
  checkRegistry(options.name, operations, options.operations);
  const plans = new Map(operations.map((operation) => [operation.operationId!, planOf(operation)]));
  const declarations = new Map<string, DeclaredOperation<Work>>(options.operations.map((declared) => [declared.operationId, declared]));
  const mediaTypes = declaredMediaTypes(options.document);

  // A document without the oauth2 scheme (the health probes) has only public operations.
  const schemes = (options.document['components'] as { securitySchemes?: Record<string, unknown> } | undefined)?.securitySchemes ?? {};
  if ('oauth2' in schemes) {
    api.registerSecurityHandler('oauth2', async (context: Context, exchange: Exchange) => {
      const principal = await options.authenticator.principalOf(headerValue(context.request.headers, 'authorization'));
      const operationId = context.operation.operationId!;
      const refusal = scopeRefusal(principal, plans.get(operationId)!.scopeRequirements);
      const expensive = !refusal && (declarations.get(operationId)?.expensive?.(exchange.apiRequest.query) ?? false);
      // A request refused for its scope still counts, as one request (it runs nothing), and its 403
      // carries the headers: a credential that keeps calling with the wrong scope is limited like
      // any other (429 once its quota is spent), and the contract's promise of the headers on every
      // answer to an accepted token holds.
      if (options.rateLimits) exchange.rateLimit = await options.rateLimits.consume(principal.credentialId, expensive);
      if (refusal) throw refusal;
      if (expensive && options.rateLimits) exchange.req.res!.once('close', options.rateLimits.admitSearch(principal.credentialId));
      exchange.principal = principal;
      return principal;
    });
  }
  api.register({
    postRoutingHandler: (context: Context, exchange: Exchange) => {
      exchange.operationId = context.operation?.operationId;
    },
    notFound: () => {
      throw new NotFound('No operation exists at this path.', 'route_not_found');
    },
    methodNotAllowed: (_context: Context, exchange: Exchange) => {
      const { path } = exchange.apiRequest;
      const allowed = METHODS.filter((method) => api.matchOperation({ method, path, headers: {} }) !== undefined);
      // Every GET also answers HEAD (see the router below).
      if (allowed.includes('get')) allowed.splice(allowed.indexOf('get') + 1, 0, 'head');
      throw new ApiError(405, 'method_not_allowed', `This path does not accept ${exchange.req.method}.`, undefined, {
        Allow: allowed.map((method) => method.toUpperCase()).join(', '),
      });
    },
    unauthorizedHandler: (context: Context) => {
      const result = (context.security as Record<string, { error?: unknown } | undefined>)['oauth2'];
      throw result?.error ?? new ApiError(401, 'unauthorized', 'A Bearer access token is required.');
    },
    // The body and query are read only for a caller that may call the operation.
    postSecurityHandler: (context: Context, exchange: Exchange) => {
      if (context.security?.authorized || (context.operation.security ?? []).length === 0) {
        exchange.apiRequest.query = declaredQuery(context.operation, exchange.apiRequest.query);
        exchange.apiRequest.body = parseBody(mediaTypes.get(context.operation.operationId!) ?? [], exchange.req);
      }
    },
    // Every problem is reported together: rule checks (check digits, phones...) run on the parts of
    // the body that are well-formed, next to the schema's findings.
    validationFail: (context: Context, exchange: Exchange) => {
      const errors = context.validation.errors ?? [];
      const rules = declarations.get(context.operation.operationId!)?.ruleProblems;
      throw validationError(errors, rules ? ruleProblemsBeside(errors, rules(exchange.apiRequest.body)) : []);
    },
    notImplemented: (context: Context) => {
      throw new ApiError(501, 'not_implemented', `Operation ${context.operation.operationId} is not implemented.`);
    },
  });
  for (const declared of options.operations) {
    api.register(declared.operationId, (context: Context, exchange: Exchange) =>
      runOperation(
        {
          declared,
          plan: plans.get(declared.operationId)!,
          input: inputOf(context, exchange),
          facts: factsOf(context, exchange, options),
          method: exchange.apiRequest.method,
          headers: exchange.apiRequest.headers,
          principal: exchange.principal,
        },
        options,
      ),
    );
  }

  const router = express.Router();
  router.use(express.raw({ type: () => true, limit: MAX_BODY }));
  router.use(async (req: Request, res: Response) => {
    const started = process.hrtime.bigint();
    const apiRequest: ApiRequest = {
      // HEAD is the GET of the same path without a body (RFC 9110 §9.3.2), as the documents say:
      // routed, authorised, validated and answered as the GET; Node leaves the body out.
      method: req.method === 'HEAD' ? 'GET' : req.method,
      path: req.path,
      query: req.query as RawQuery,
      // A malformed X-Correlation-Id is replaced (correlation-id.ts), never refused.
      headers: { ...req.headers, 'x-correlation-id': req.correlationId },
      body: undefined,
    };
    const exchange: Exchange = { apiRequest, req };
    let result: HttpResult;
    try {
      result = (await api.handleRequest(apiRequest as never, exchange)) as HttpResult;
    } catch (error) {
      result = errorResult(req, error);
    }
    if (exchange.rateLimit) result = { ...result, headers: { ...exchange.rateLimit.headers, ...result.headers } };
    if (options.checkResponses) checkResponseAgainstContract(api, apiRequest, result, req.correlationId);
    sendResult(res, result);
    recordAnswer(options.name, exchange.operationId, result.status, started);
  });
  return router;
}

/**
 * The validated values, coerced by the validator to the types the contract declares. A path
 * parameter must be written in its canonical form (`42`, not `042`, `4.2e1` or `0x2a`): a path
 * names one resource, and anything else names none (404).
 */
function inputOf(context: Context, exchange: Exchange): DeclaredInput {
  const coerced = (context.validation as { coerced?: { params?: Record<string, unknown>; query?: unknown } } | undefined)?.coerced;
  const params = coerced?.params ?? context.request.params;
  for (const [name, value] of Object.entries(params)) {
    if (typeof value === 'number' && String(value) !== String(context.request.params[name])) throw pathResourceNotFound(name);
  }
  return {
    params,
    query: declaredValues(context.operation, (coerced?.query ?? exchange.apiRequest.query) as Record<string, unknown>),
    body: exchange.apiRequest.body,
  };
}

function declaredValues(operation: Operation, query: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const parameter of (operation.parameters ?? []) as Array<{ in?: string; name?: string }>) {
    if (parameter.in === 'query' && parameter.name && query[parameter.name] !== undefined) kept[parameter.name] = query[parameter.name];
  }
  return kept;
}

function factsOf<Work>(context: Context, exchange: Exchange, options: PipelineOptions<Work>): RequestFacts {
  const { req } = exchange;
  const origin = options.publicOrigin ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;
  return {
    baseUrl: `${origin}${options.basePath}`,
    path: exchange.apiRequest.path,
    query: declaredValues(context.operation, exchange.apiRequest.query),
    correlationId: req.correlationId,
    log: (req.log as Logger | undefined) ?? options.logger,
  };
}
