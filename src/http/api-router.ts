/**
 * The partner API: openapi-backend routes and validates every request from openapi/partner.yaml,
 * the Bearer guard authenticates it against the operation's declared security, writes run through
 * the idempotency pipeline, and one thin handler per operationId does the rest.
 */
import express, { type Request, type Response } from 'express';
import OpenAPIBackend, { type Context, type Operation } from 'openapi-backend';
import type { ErrorObject } from 'ajv';
import { authenticateBearer, bearerTokenHash, type Principal } from '../auth/bearer-guard';
import { DeferredBearer } from '../auth/deferred-bearer';
import type { Environment } from '../auth/opaque-secrets';
import type { Database } from '../database/prisma-client';
import { ApiError, BadRequest, NotFound, ValidationFailed } from '../errors';
import type { Logger } from '../logger';
import { customizeAjv } from './ajv';
import { type OpenApiDocument } from '../contract/load-contract';
import { runIdempotentWrite, SerializedJson } from './idempotency';
import { checksToken, isSqlWriteHandler, type HttpResult, type OperationContext, type OperationHandlers, type OperationRequest, type RequestContext } from './operation';
import { errorResult } from './error-response';
import { describeValidationErrors } from './validation-errors';
import { unstorableTextPaths } from './storable-text';
import { checkResponseAgainstContract } from './response-check';
import { compileRouting } from './compiled-routing';

export interface ApiRouterOptions {
  db: Database;
  environment: Environment;
  logger: Logger;
  document: OpenApiDocument;
  handlers: OperationHandlers;
  /** Per operationId: the rule problems of a body that failed schema validation. */
  domainChecks?: Record<string, (body: unknown) => string[]>;
  idempotencyRetentionHours: number;
  publicOrigin?: string;
  apiBasePath: string;
  /** Tests turn this on: a response that the contract does not allow becomes a 500. */
  checkResponses?: boolean;
}

interface Exchange {
  apiRequest: OperationRequest;
  req: Request;
  /** Set when the operation checks the Bearer token in its own statements (auth/deferred-bearer.ts). */
  bearer?: DeferredBearer;
}

const MAX_BODY = '100kb';
const JSON_TYPES = ['application/json', 'application/merge-patch+json'];
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export async function createApiRouter(options: ApiRouterOptions): Promise<express.Router> {
  const api = new OpenAPIBackend({
    definition: routingCopy(options.document) as never,
    strict: true,
    quick: true,
    validate: true,
    customizeAjv: customizeAjv as never,
  });
  await api.init();
  compileRouting(api);
  registerOperations(api, options);
  const mediaTypes = declaredMediaTypes(options.document);
  api.registerSecurityHandler('oauth2', async (context: Context, exchange: Exchange) => {
    const authorization = header(context, 'authorization');
    const requirements = scopeRequirementsOf(context.operation);
    const id = context.operation.operationId!;
    if (checksToken(options.handlers.read[id]) || isSqlWriteHandler(options.handlers.write[id])) {
      // The read's own statement, or the write's BEGIN, checks the token; until then the request holds it unsettled.
      exchange.bearer = new DeferredBearer(options.db, bearerTokenHash(options.environment, authorization), requirements);
      return exchange.bearer;
    }
    return authenticateBearer(options.db, options.environment, authorization, requirements);
  });
  api.register({
    notFound: () => {
      throw new NotFound('No operation exists at this path.', 'route_not_found');
    },
    methodNotAllowed: (_context: Context, exchange: Exchange) => {
      const allowed = METHODS.filter((method) => matches(api, method, exchange.apiRequest.path)).map((m) => m.toUpperCase());
      throw new ApiError(405, 'method_not_allowed', `This path does not accept ${exchange.apiRequest.method}.`, undefined, {
        Allow: allowed.join(', '),
      });
    },
    unauthorizedHandler: (context: Context) => {
      const result = (context.security as Record<string, { error?: unknown } | undefined>)['oauth2'];
      throw result?.error ?? new ApiError(401, 'unauthorized', 'A Bearer access token is required.');
    },
    postSecurityHandler: (context: Context, exchange: Exchange) => {
      if (context.security?.authorized || (context.operation.security ?? []).length === 0) {
        exchange.apiRequest.query = declaredQuery(context.operation, exchange.apiRequest.query);
        exchange.apiRequest.body = parseBody(mediaTypes.get(context.operation.operationId!) ?? [], exchange.req);
      }
    },
    // The contract reports every problem together: rule checks (check digits, phones...) run on the
    // parts of the body that are well-formed, next to the schema's findings.
    validationFail: (context: Context, exchange: Exchange) => {
      const errors = context.validation.errors ?? [];
      const check = options.domainChecks?.[context.operation.operationId!];
      const schemaPaths = new Set(describeValidationErrors(errors).map((detail) => detail.split(':')[0]));
      const domainProblems = check ? check(exchange.apiRequest.body).filter((detail) => !schemaPaths.has(detail.split(':')[0])) : [];
      throw validationError(errors, domainProblems);
    },
  });

  const router = express.Router();
  router.use(express.raw({ type: () => true, limit: MAX_BODY }));
  router.use(async (req: Request, res: Response) => {
    const apiRequest: OperationRequest = {
      method: req.method,
      path: req.path,
      params: {},
      query: req.query as OperationRequest['query'],
      // A malformed X-Correlation-Id is replaced (correlation-id.ts), never refused.
      headers: { ...req.headers, 'x-correlation-id': req.correlationId },
      body: undefined,
    };
    const exchange: Exchange = { apiRequest, req };
    let result: HttpResult;
    try {
      result = (await api.handleRequest(apiRequest as never, exchange)) as HttpResult;
    } catch (error) {
      result = errorResult(req, await tokenErrorFirst(exchange, error));
    }
    if (options.checkResponses) checkResponseAgainstContract(api, apiRequest, result, req.correlationId);
    sendResult(res, result);
  });
  return router;
}

function registerOperations(api: OpenAPIBackend, options: ApiRouterOptions): void {
  const { read, write, publicRead } = options.handlers;
  for (const operation of api.getOperations()) {
    const id = operation.operationId!;
    api.register(id, async (context: Context, exchange: Exchange) => {
      const requestContext: RequestContext = {
        operationId: id,
        request: { ...exchange.apiRequest, params: context.request.params as Record<string, string> },
        correlationId: exchange.req.correlationId,
        baseUrl: `${options.publicOrigin ?? `${exchange.req.protocol}://${exchange.req.get('host') ?? 'localhost'}`}${options.apiBasePath}`,
        log: (exchange.req.log as Logger | undefined) ?? options.logger,
      };
      const handler = read[id];
      if (exchange.bearer && checksToken(handler)) {
        const result = await handler({ ...requestContext, bearer: exchange.bearer }, options.db);
        // A read that answered without settling the token must not answer an unchecked caller.
        await exchange.bearer.settle(undefined);
        return result;
      }
      const principal = context.security?.['oauth2'] as Principal;
      if (write[id]) {
        return runIdempotentWrite(options.db, requestContext, exchange.bearer ?? principal, write[id], { retentionHours: options.idempotencyRetentionHours });
      }
      const ctx: OperationContext = { ...requestContext, principal };
      if (handler && !checksToken(handler)) return handler(ctx, options.db);
      if (publicRead[id]) return publicRead[id](ctx);
      throw new ApiError(501, 'not_implemented', `Operation ${id} is declared but not implemented yet.`);
    });
  }
}

/**
 * A request that failed before its deferred token was settled (a query value refused, a path id
 * that names nothing, a database error) has its token checked first, so that a bad token is 401
 * (or 403) whatever else is wrong with the request, as on every other operation.
 */
async function tokenErrorFirst(exchange: Exchange, error: unknown): Promise<unknown> {
  if (!exchange.bearer || exchange.bearer.settled) return error;
  try {
    await exchange.bearer.settle(undefined);
    return error;
  } catch (tokenError) {
    return tokenError;
  }
}

/**
 * openapi-backend validates request bodies only when they are declared as application/json.
 * Merge patches are declared as application/merge-patch+json in the published document; the
 * router's private copy also lists their schema under application/json so they are validated too.
 */
function routingCopy(document: OpenApiDocument): OpenApiDocument {
  const copy = structuredClone(document);
  for (const pathItem of Object.values(copy.paths)) {
    for (const operation of Object.values(pathItem) as Array<{ requestBody?: { content?: Record<string, unknown> } }>) {
      const content = operation?.requestBody?.content;
      if (content && !content['application/json'] && content['application/merge-patch+json']) {
        content['application/json'] = content['application/merge-patch+json'];
      }
    }
  }
  return copy;
}

/**
 * Query parameters the operation does not declare are ignored (as the contract says), so that a
 * cache-busting or tracking parameter never turns a read into an error. Declared text values that
 * PostgreSQL cannot store are refused with the other validation problems.
 */
function declaredQuery(operation: Operation, query: OperationRequest['query']): OperationRequest['query'] {
  const declared = new Set(
    ((operation.parameters ?? []) as Array<{ in?: string; name?: string }>).filter((p) => p.in === 'query').map((p) => p.name),
  );
  const kept: OperationRequest['query'] = {};
  for (const [name, value] of Object.entries(query)) if (declared.has(name)) kept[name] = value;
  const unstorable = unstorableTextPaths(kept).map((path) => `query.${path}: contains NUL or an unpaired surrogate`);
  if (unstorable.length > 0) throw new ValidationFailed(unstorable);
  return kept;
}

/** Request media types per operationId, as the published document declares them (not the routing copy). */
function declaredMediaTypes(document: OpenApiDocument): Map<string, string[]> {
  const types = new Map<string, string[]>();
  for (const pathItem of Object.values(document.paths)) {
    for (const operation of Object.values(pathItem) as Array<{ operationId?: string; requestBody?: { content?: object } }>) {
      if (operation?.operationId) types.set(operation.operationId, Object.keys(operation.requestBody?.content ?? {}));
    }
  }
  return types;
}

/** Checks the media type against the operation's declared ones (415) and parses JSON (400 malformed_json). */
function parseBody(declared: string[], req: Request): unknown {
  const raw = Buffer.isBuffer(req.body) ? req.body : undefined;
  if (declared.length === 0 || raw === undefined || raw.length === 0) return undefined;
  const mediaType = (req.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (!declared.includes(mediaType)) {
    throw new ApiError(415, 'unsupported_media_type', `The request body must be sent as ${declared.join(' or ')}.`, [
      `Content-Type: must be ${declared.join(' or ')}`,
    ]);
  }
  if (!JSON_TYPES.includes(mediaType)) return raw.toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw new BadRequest('malformed_json', 'The request body is not valid JSON.', [`body: ${(error as Error).message}`]);
  }
  const unstorable = unstorableTextPaths(body);
  if (unstorable.length > 0) {
    throw new ValidationFailed(unstorable.slice(0, 50).map((path) => `${path}: contains NUL or an unpaired surrogate, which cannot be stored`));
  }
  return body;
}

function validationError(errors: ErrorObject[], domainProblems: string[]): ApiError {
  // A path id of the wrong shape cannot name an existing resource: 404, as the contracts say. The
  // co-tenant's CPF/CNPJ is the exception the partner contract makes: malformed is 400.
  const pathErrors = errors.filter((error) => error.instancePath.startsWith('/path'));
  if (pathErrors.some((error) => !error.instancePath.startsWith('/path/cpfCnpj'))) return new NotFound();
  const missingKey = errors.some(
    (error) => error.instancePath === '/header' && (error.params as { missingProperty?: string }).missingProperty === 'idempotency-key',
  );
  if (missingKey) {
    return new BadRequest('idempotency_key_required', 'This write requires an Idempotency-Key header.', ['Idempotency-Key: is required']);
  }
  const badKey = errors.some((error) => error.instancePath === '/header/idempotency-key');
  if (badKey) {
    return new BadRequest('idempotency_key_invalid', 'The Idempotency-Key must be 1 to 255 visible ASCII characters.', [
      'Idempotency-Key: must be 1 to 255 visible ASCII characters',
    ]);
  }
  if (errors.some((error) => error.instancePath === '/header/if-match')) {
    return new BadRequest('if_match_invalid', 'If-Match must hold ETags of the form W/"<version>".', ['If-Match: must be a list of entity tags']);
  }
  return new ValidationFailed([...new Set([...describeValidationErrors(errors), ...domainProblems])]);
}

/** Each security requirement object's oauth2 scopes; meeting any one requirement is enough (OpenAPI). */
function scopeRequirementsOf(operation: Operation): string[][] {
  return (operation.security ?? []).map((requirement) => (requirement as Record<string, string[]>)['oauth2'] ?? []);
}

function matches(api: OpenAPIBackend, method: string, path: string): boolean {
  try {
    api.router.matchOperation({ method, path, headers: {} } as never, true);
    return true;
  } catch {
    return false;
  }
}

function header(context: Context, name: string): string | undefined {
  const value = context.request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function sendResult(res: Response, result: HttpResult): void {
  res.status(result.status);
  if (result.headers) res.set(result.headers);
  if (result.body === undefined || result.status === 304 || result.status === 204) {
    res.end();
  } else if (result.body instanceof SerializedJson) {
    res.type('application/json').send(result.body.text);
  } else if (result.contentType) {
    res.type(result.contentType).send(result.body);
  } else {
    res.json(result.body);
  }
}
