/** What a thin operation handler receives and returns. Handlers know no Express. */
import type { Principal } from '../auth/bearer-guard';
import type { DeferredBearer } from '../auth/deferred-bearer';
import type { Database, Transaction } from '../database/prisma-client';
import type { SqlTransaction } from '../database/sql';
import type { Logger } from '../logger';

export interface OperationRequest {
  method: string;
  /** Path relative to the API base path, e.g. /v1/rental-insurances/42. */
  path: string;
  params: Record<string, string>;
  query: Record<string, string | string[] | undefined>;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export interface OperationContext {
  operationId: string;
  request: OperationRequest;
  /** Present on every operation whose contract declares a security requirement. */
  principal: Principal;
  correlationId: string;
  /** Absolute base URL of the partner API as the caller reached it (PUBLIC_ORIGIN + API_BASE_PATH). */
  baseUrl: string;
  log: Logger;
}

/** What every operation knows of its request, whoever the caller is. */
export type RequestContext = Omit<OperationContext, 'principal'>;

export interface HttpResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** For non-JSON bodies (the published YAML document). */
  contentType?: string;
  /**
   * Writes only: changes the body of the first response after the transaction committed, without
   * storing the change; a replay answers the stored body. Used to show a new secret exactly once.
   */
  firstResponseOnly?: (storedBody: unknown) => unknown;
}

export type ReadHandler = PrincipalReadHandler | TokenCheckingReadHandler;
export type PrincipalReadHandler = (ctx: OperationContext, db: Database) => Promise<HttpResult>;
/**
 * A read that checks the Bearer token in its own statement (auth/deferred-bearer.ts) instead of a
 * round trip before it: it gets `bearer`, not `principal`, and must settle it before answering.
 */
export interface TokenCheckingReadHandler {
  (ctx: TokenCheckingContext, db: Database): Promise<HttpResult>;
  readonly checksToken: true;
}
export type TokenCheckingContext = RequestContext & { bearer: DeferredBearer };

export function tokenCheckingRead(handler: (ctx: TokenCheckingContext, db: Database) => Promise<HttpResult>): TokenCheckingReadHandler {
  return Object.assign(handler, { checksToken: true as const });
}

export function checksToken(handler: ReadHandler | undefined): handler is TokenCheckingReadHandler {
  return (handler as Partial<TokenCheckingReadHandler> | undefined)?.checksToken === true;
}
/** Write handlers run inside the idempotency transaction and must use `tx` for every query. */
export type WriteHandler = PrismaWriteHandler | SqlWriteHandler;
export type PrismaWriteHandler = (ctx: OperationContext, tx: Transaction) => Promise<HttpResult>;
/** A write whose every statement goes through `sqlOf(tx)`: it runs in a transaction of our own (sql.ts). */
export interface SqlWriteHandler {
  (ctx: OperationContext, tx: SqlTransaction): Promise<HttpResult>;
  readonly onSqlTransaction: true;
}

export function isSqlWriteHandler(handler: WriteHandler | undefined): handler is SqlWriteHandler {
  return (handler as Partial<SqlWriteHandler> | undefined)?.onSqlTransaction === true;
}

export function sqlWriteHandler(handler: (ctx: OperationContext, tx: SqlTransaction) => Promise<HttpResult>): SqlWriteHandler {
  return Object.assign(handler, { onSqlTransaction: true as const });
}

/** Operations whose contract declares no security (the published document). */
export type PublicHandler = (ctx: RequestContext) => Promise<HttpResult>;

export type OperationHandlers = {
  read: Record<string, ReadHandler>;
  write: Record<string, WriteHandler>;
  publicRead: Record<string, PublicHandler>;
};

export function header(ctx: RequestContext, name: string): string | undefined {
  const value = ctx.request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}
