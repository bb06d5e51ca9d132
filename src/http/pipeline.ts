/**
 * The one pipeline of an API document (the partner API, the back office): every cross-cutting rule
 * lives here or in the modules it calls, in this order:
 *   route (the document's routes, document-router.ts)  ->  authenticate once, count the request
 *   against the credential's and the agency's quotas (rate-limits.ts; a request without a token
 *   against its address's) and check the operation's scopes  ->  read the
 *   declared query and the body  ->  validate them against the contract (openapi-backend's compiled
 *   validators, request-validation.ts)  ->  room for the answer's worst case in the process's answer
 *   budget (answer-budget.ts)  ->  writes: Idempotency-Key claim and one transaction  ->  If-Match
 *   precondition  ->  the declared handler on a company-scoped unit of work  ->  response headers
 *   from its typed result  ->  errors as the specification's body.
 * Authentication comes before validation so that a bad token is 401 whatever else is wrong.
 * Each part of a request is read once, by the step that needs it. With tracing on, the steps are
 * spans (pipeline.authenticate, pipeline.validate, then run-operation.ts's and idempotent-write.ts's)
 * of the request's server span, which is named after the operation's path template.
 */
import onFinished from 'on-finished';
import type { ReplicaReads } from '../database/replica-reads';
import express, { type Request, type Response } from 'express';
import OpenAPIBackend, { type Document } from 'openapi-backend';
import { assertConsolePage, type CallerAuthenticator } from '../auth/caller-authenticator';
import { clientAddress } from '../auth/source-address';
import { scopeRefusal, type Principal } from '../auth/principal';
import { answerCostsOf } from '../contract/answer-cost';
import { listBoundsOf, type ListBounds } from '../contract/list-bounds';
import type { OpenApiDocument } from '../contract/load-contract';
import type { Database } from '../database/prisma-client';
import type { UnitOfWork } from '../database/unit-of-work';
import { ApiError, pathResourceNotFound } from '../errors';
import type { Logger } from '../logger';
import { sharedAjvs } from './ajv';
import type { AnswerBudget } from './answer-budget';
import { DocumentRouter } from './document-router';
import { errorResult } from './error-response';
import type { HttpResult } from './http-result';
import type { IdempotencyOptions } from './idempotent-write';
import type { DeclaredInput, DeclaredOperation, RequestFacts } from './operation-registry';
import { planOf } from './operation-plan';
import { checkRegistry } from './registry-check';
import { declaredMediaTypes, declaredQuery, parseBody, type RawQuery } from './request-parsing';
import { hasStoredOutcome } from './idempotency-store';
import { parseIdempotencyKey } from './idempotency';
import { isMultipart, multipartShapeOf, readMultipart, type MultipartShape, type UploadStaging } from './multipart-body';
import { requestValidators, validateRequest } from './request-validation';
import { responseChecker } from './response-check';
import { answerRecorder } from '../observability/request-metrics';
import { inSpan, nameRequestRoute } from '../tracing/tracing';
import { recordAnswered, type RequestLogSink } from './request-log-line';
import type { RateLimits, RateLimitState } from './rate-limits';
import { runOperation } from './run-operation';
import { sendResult } from './send-result';
import { normalised, problemsBeside, validationError } from './validation-errors';

export interface ApiDefinition<Work> {
  /** For start-up messages, e.g. openapi/partner.yaml. */
  name: string;
  document: OpenApiDocument;
  operations: DeclaredOperation<Work>[];
  /** What a handler works with, on the request's unit of work and scoped by the principal (its company, for partners). */
  workFor: (unit: UnitOfWork, principal: Principal) => Work;
}

export interface PipelineOptions<Work> extends ApiDefinition<Work> {
  db: Database;
  /** Bearer tokens, and the console's sessions where an operation's contract accepts them (issue 37). */
  authenticator: CallerAuthenticator;
  logger: Logger;
  basePath: string;
  publicOrigin?: string;
  idempotency: IdempotencyOptions;
  /** Reads the streaming replica may serve (absent: none). */
  replicaReads?: ReplicaReads;
  /** Quotas and search limits per credential and agency, and the quota of requests without a token (absent: none). */
  rateLimits?: RateLimits;
  /** Count this API's requests to operations without security against their address's quota (not the health probes). */
  countAnonymous?: boolean;
  /** The worst-case bytes of answers this process makes at once, shared by every API (absent: unbounded). */
  answerBudget?: AnswerBudget;
  /** Tests turn this on: a response that the contract does not allow becomes a 500. */
  checkResponses?: boolean;
  /** Tests: told of every answer of an operation (the suite's tally of the operations it exercised). */
  onAnswered?: (document: string, operationId: string, status: number) => void;
  /** The agency request log (partner API only; absent: REQUEST_LOG=off or another API). */
  requestLog?: RequestLogSink;
  /** Issue 37: every request must come from the console's own pages (the console's API; assertConsolePage). */
  consolePagesOnly?: boolean;
  /** Where `multipart/form-data` uploads are staged (the documents); absent: no operation takes one. */
  uploads?: UploadStaging;
}

interface Exchange {
  req: Request;
  operationId?: string;
  /** The RateLimit headers of an authenticated request, added to whatever it is answered. */
  rateLimit?: RateLimitState;
  /** Who made it, once the token is accepted: the agency whose request log gets the line. */
  principal?: Principal;
  /** The operation's path template and the raw path parameters, once routed. */
  route?: { path: string; params: Record<string, string> };
  /** A multipart request: discards the bytes it staged that its write did not keep. */
  settle?: () => Promise<void>;
}

const MAX_BODY = '100kb';

/** The router of one API document; throws at start-up when the declarations do not match the document. */
export async function createApiRouter<Work>(options: PipelineOptions<Work>): Promise<express.Router> {
  // From the document as written (its $refs), before openapi-backend dereferences it.
  const costs = answerCostsOf(options.document);
  // openapi-backend dereferences (a copy of) the document; the pipeline below routes, parses and
  // validates each request once, with validators compiled at each operation's first request.
  const api = new OpenAPIBackend({
    definition: options.document as unknown as Document,
    strict: true,
    quick: true,
    validate: true,
    coerceTypes: true,
    customizeAjv: sharedAjvs() as never,
  });
  await api.init();
  const operations = api.getOperations();
  checkRegistry(options.name, operations, options.operations);
  const router = new DocumentRouter(operations);
  const validatorsOf = requestValidators(api);
  const plans = new Map(operations.map((operation) => [operation.operationId!, planOf(operation)]));
  const declarations = new Map<string, DeclaredOperation<Work>>(options.operations.map((declared) => [declared.operationId, declared]));
  const mediaTypes = declaredMediaTypes(options.document);
  const lists = listBoundsOf(options.document);
  const multipartShapes = new Map<string, MultipartShape>();
  for (const operation of operations) {
    const content = (operation.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined)?.content;
    const shape = multipartShapeOf(content?.['multipart/form-data']?.schema);
    if (shape) multipartShapes.set(operation.operationId!, shape);
  }
  const recordAnswer = answerRecorder(options.name);
  const checkResponse = options.checkResponses ? responseChecker(api) : undefined;

  /** Authenticates once, counts the request against the quota and checks the operation's scopes. */
  const authorise = async (operationId: string, headers: Headers, rawQuery: RawQuery, exchange: Exchange): Promise<Principal> => {
    const plan = plans.get(operationId)!;
    const principal = await options.authenticator.principalOf({
      headers,
      method: exchange.req.method,
      origin: originOf(exchange.req, options),
      acceptsBearer: plan.scopeRequirements.length > 0,
      acceptsSession: plan.sessionScopeRequirements !== undefined,
    });
    exchange.principal = principal;
    const refusal = scopeRefusal(principal, principal.session ? plan.sessionScopeRequirements! : plan.scopeRequirements);
    const expensive = !refusal && (declarations.get(operationId)?.expensive?.(rawQuery) ?? false);
    // A request refused for its scope still counts, as one request (it runs nothing), and its 403
    // carries the headers: a credential that keeps calling with the wrong scope is limited like
    // any other (429 once its quota is spent), and the contract's promise of the headers on every
    // answer to an accepted token holds.
    if (options.rateLimits) exchange.rateLimit = await options.rateLimits.consume(principal, expensive);
    if (refusal) throw refusal;
    // Released when the answer is over, or at once when the client already hung up while this
    // request was being admitted (its 'close' came before a listener could: the slot would be kept
    // for good). on-finished covers both.
    if (expensive && options.rateLimits) onFinished(exchange.req.res!, options.rateLimits.admitSearch(principal));
    return principal;
  };

  const plainBody = (operationId: string, req: Request) => {
    const body = parseBody(mediaTypes.get(operationId) ?? [], req);
    return { body, validationView: body };
  };

  /** A multipart body of an operation that declares one, read by a caller the pipeline authorised; else 415. */
  const readUploads = async (operationId: string, principal: Principal | undefined, exchange: Exchange) => {
    const shape = multipartShapes.get(operationId);
    if (!shape || !options.uploads || !principal) {
      exchange.req.resume();
      const declared = mediaTypes.get(operationId) ?? [];
      throw new ApiError(415, 'unsupported_media_type', `The request body must be sent as ${declared.join(' or ') || 'nothing'}.`, [
        `Content-Type: must be ${declared.join(' or ') || 'absent (this operation takes no body)'}`,
      ]);
    }
    await refuseBeforeReading(options.uploads, principal.companyId, exchange);
    const read = await readMultipart(exchange.req, shape, options.uploads, principal.companyId);
    exchange.settle = read.settle;
    return { body: read.body as unknown, validationView: read.validationView as unknown };
  };

  /**
   * An upload the staging refuses before reading (its agency's quota of the day is spent) is
   * answered without reading its body, and the connection is closed rather than drained; unless
   * its Idempotency-Key names a stored write, whose retry reads on to be replayed.
   */
  const refuseBeforeReading = async (uploads: UploadStaging, companyId: string, exchange: Exchange) => {
    const refusal = await uploads.refusalBeforeReading(companyId);
    if (!refusal) return;
    const key = idempotencyKeyOf(exchange.req.get('idempotency-key'));
    if (key && (await hasStoredOutcome(options.db, companyId, key))) return;
    exchange.req.resume();
    throw new ApiError(refusal.status, refusal.code, refusal.message, refusal.details, { ...refusal.headers, Connection: 'close' });
  };

  const handle = async (req: Request, exchange: Exchange): Promise<HttpResult> => {
    // HEAD is the GET of the same path without a body (RFC 9110 §9.3.2), as the documents say:
    // routed, authorised, validated and answered as the GET; Node leaves the body out.
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const { operation, params } = router.route(method.toLowerCase(), req.path, req.method);
    const operationId = operation.operationId!;
    const plan = plans.get(operationId)!;
    exchange.operationId = operationId;
    exchange.route = { path: operation.path, params };
    nameRequestRoute(`${options.basePath}${operation.path}`);
    // A malformed X-Correlation-Id is replaced (correlation-id.ts), never refused.
    const headers: Headers = { ...req.headers, 'x-correlation-id': req.correlationId };
    const rawQuery = req.query as RawQuery;
    if (options.consolePagesOnly) assertConsolePage({ headers, method: req.method, origin: originOf(req, options) });
    // Authentication comes first: a bad token is 401 whatever else is wrong. The body and query
    // are read only for a caller that may call the operation.
    const secured = (operation.security ?? []).length > 0;
    const principal = secured ? await inSpan('pipeline.authenticate', () => authorise(operationId, headers, rawQuery, exchange)) : undefined;
    if (!secured && options.countAnonymous) await options.rateLimits?.consumeAnonymous(req.ip);
    // A multipart body is streamed to the store as it is read (multipart-body.ts); any other is
    // parsed from the bytes express.raw read (at most 100 KB).
    const multipart = isMultipart(req);
    const uploaded = multipart ? await readUploads(operationId, principal, exchange) : undefined;
    const declared = declarations.get(operationId);
    const { query, input } = inSpan('pipeline.validate', () => {
      const query = declaredQuery(plan.query, rawQuery);
      const { body, validationView } = uploaded ?? plainBody(operationId, req);
      const validated = validateRequest(validatorsOf(operationId, multipart), { params, query, headers, body: validationView });
      const input: DeclaredInput = { params: canonicalParams(params, validated.params), query: validated.query, body };
      // Every problem is reported together: the operation's normalise step (check digits, phones...)
      // runs on the parts of the body that are well-formed, next to the schema's findings.
      if (validated.errors.length > 0) throw validationError(validated.errors, declared ? problemsBeside(declared, input, validated.errors) : []);
      if (declared?.normalise) input.normalised = normalised(declared.normalise, input);
      return { query, input };
    });
    if (!declared) throw new ApiError(501, 'not_implemented', `Operation ${operationId} is not implemented.`);
    // Room for the answer's worst case, given back once it is written (or its connection closed);
    // a caller's agency holds at most its share. Public operations answer small, fixed bodies.
    const cost = costs.get(operationId);
    if (cost && principal && options.answerBudget) {
      const admitted = options.answerBudget.admit(principal.companyId, cost(input.query as Record<string, unknown>), req.res);
      onFinished(req.res!, typeof admitted === 'function' ? admitted : await admitted);
    }
    return runOperation(
      {
        declared,
        plan,
        input,
        facts: factsOf(req, query, options, lists.get(operationId)),
        method,
        headers,
        principal,
      },
      options,
    );
  };

  const expressRouter = express.Router();
  // Multipart bodies are not read here: the pipeline streams them once it has authorised the caller.
  expressRouter.use(express.raw({ type: (req) => !isMultipart(req as Request), limit: MAX_BODY }));
  expressRouter.use(async (req: Request, res: Response) => {
    const started = process.hrtime.bigint();
    const arrivedAt = Date.now();
    const exchange: Exchange = { req };
    let result: HttpResult;
    try {
      result = await handle(req, exchange);
    } catch (error) {
      result = errorResult(req, error);
    }
    // Before the answer: a client that reads it finds no bytes of a failed upload left behind.
    if (exchange.settle)
      await exchange
        .settle()
        .catch((error: unknown) => options.logger.warn({ err: error }, 'staged upload bytes not discarded yet; housekeeping will'));
    if (exchange.rateLimit) result = { ...result, headers: { ...exchange.rateLimit.headers, ...result.headers } };
    if (checkResponse && exchange.operationId) {
      checkResponse(api.getOperation(exchange.operationId)!, `${req.method} ${req.path}`, result, req.correlationId);
    }
    sendResult(res, result);
    recordAnswer(exchange.operationId, result.status, started);
    // After the answer, and only into a buffer (request-log-writer.ts): the line costs the request nothing it waits for.
    const { principal, route, operationId } = exchange;
    if (options.requestLog && principal && !principal.session && route && operationId) {
      recordAnswered(options.requestLog, {
        principal,
        operationId,
        pathTemplate: route.path,
        params: route.params,
        method: req.method,
        idempotencyKeyHeader: req.headers['idempotency-key'] as string | undefined,
        correlationId: req.correlationId,
        address: req.ip,
        arrivedAt,
        durationMs: Number(process.hrtime.bigint() - started) / 1e6,
        result,
      });
    }
    if (exchange.operationId) options.onAnswered?.(options.name, exchange.operationId, result.status);
  });
  return expressRouter;
}

type Headers = Record<string, string | string[] | undefined>;

/** The request's Idempotency-Key when it is well-formed (the write's own step refuses it otherwise). */
function idempotencyKeyOf(raw: string | undefined): string | undefined {
  try {
    return parseIdempotencyKey(raw);
  } catch {
    return undefined;
  }
}

/**
 * The validated path values, coerced by the validator to the types the contract declares. A path
 * parameter must be written in its canonical form (`42`, not `042`, `4.2e1` or `0x2a`): a path
 * names one resource, and anything else names none (404).
 */
function canonicalParams(raw: Record<string, string>, coerced: Record<string, unknown>): Record<string, unknown> {
  for (const [name, value] of Object.entries(coerced)) {
    if (typeof value === 'number' && String(value) !== raw[name]) throw pathResourceNotFound(name);
  }
  return coerced;
}

/** `query` is the declared query (request-parsing.ts), as sent: paging links repeat it. */
function factsOf<Work>(req: Request, query: RawQuery, options: PipelineOptions<Work>, list: ListBounds | undefined): RequestFacts {
  const origin = originOf(req, options);
  return {
    baseUrl: `${origin}${options.basePath}`,
    origin,
    path: req.path,
    query,
    correlationId: req.correlationId,
    address: clientAddress(req.ip),
    ...(list ? { list } : {}),
  };
}

/** The service's origin as the caller reached it: PUBLIC_ORIGIN, or the request's scheme and Host. */
function originOf<Work>(req: Request, options: PipelineOptions<Work>): string {
  return options.publicOrigin ?? `${req.protocol}://${hostOf(req.get('host'))}`;
}

/** A host name or address with an optional port, as links may carry it (at most 255 characters). */
const HOST = /^[A-Za-z0-9.-]{1,253}(:\d{1,5})?$|^\[[0-9A-Fa-f:.]{2,45}\](:\d{1,5})?$/;

/**
 * Without PUBLIC_ORIGIN (the sandbox on a partner's machine) links name the Host the caller used;
 * anything else there (a long or odd value) would go into every link of every page: `localhost`.
 */
function hostOf(host: string | undefined): string {
  return host !== undefined && HOST.test(host) ? host : 'localhost';
}
