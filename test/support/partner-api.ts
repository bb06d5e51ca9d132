/**
 * A partner's view of the API in tests: one method per operation of openapi/partner.yaml (and the
 * token endpoint of auth.yaml), each a supertest request to the in-process app with the caller's
 * Authorization. Methods return supertest's Test, so a test can still add a header or `.expect()`
 * before awaiting; the helpers whose answer a test builds on (`newGuarantee`, `current`,
 * `historyEntries`, `signatureRecords`) throw on any other status and return contract-typed bodies.
 *
 * Defaults are those of a well-behaved client, so that a test spells out only what it is about:
 * every write carries a fresh Idempotency-Key (`key` replaces it, `null` leaves it out), every
 * conditional write carries `If-Match: W/"1"`, the version of a new guarantee (`ifMatch` replaces
 * it, `null` leaves it out), and a body given as a string is sent as it is, for exact JSON text.
 *
 * Spawned service processes are reached through `call` in service-process.ts instead: those suites
 * kill processes mid-request and need answers that never throw (status 0 for a dropped connection)
 * and per-request timeouts, which supertest does not give.

 */
import request from 'supertest';
import type { Test } from 'supertest';
import type { Express } from 'express';
import type { Database } from '../../src/database/prisma-client';
import type { components, operations } from '../../src/generated/partner-api';
import { guaranteeBody, newKey } from './factories';

export const API = '/rental-guarantee';
export const TOKEN_PATH = '/auth/oauth2/token';
export const COLLECTION = `${API}/v1/rental-insurances`;
export const FINANCIAL = `${API}/v1/financial`;
export const itemPath = (id: number | string) => `${COLLECTION}/${id}`;

type Schemas = components['schemas'];
export type Guarantee = Schemas['RentalInsurance'];
export type HistoryEntry = Schemas['HistoryEntry'];
export type Signature = Schemas['Signature'];
export type ListQuery = NonNullable<operations['listRentalInsurances']['parameters']['query']>;
export type StatementQuery = operations['listStatementEntries']['parameters']['query'];
export type SummaryQuery = operations['listDailySummaries']['parameters']['query'];

/** Whoever sends the requests: an agency, an operator, or a hand-made Authorization. */
export interface Caller {
  auth: Record<string, string>;
}
export const ANONYMOUS: Caller = { auth: {} };
export const withAuthorization = (value: string): Caller => ({ auth: { Authorization: value } });

/** The app to send to (read when a request is sent, so a lazily started world will do). */
export interface AppTarget {
  readonly app: Express;
  /** The caller when none is given: a world's first ready-made agency. */
  readonly agency?: Caller;
  /** The app's database, when a reader must wait for the shared server (the event feed, webhook-support.ts). */
  readonly db?: Database;
}

/**
 * A query: typed parameters, pairs (for repeated or deliberately invalid values) or a query string
 * sent byte for byte.
 */
export type Query = string | ReadonlyArray<readonly [string, string | number]> | { [name: string]: QueryValue };
type QueryValue = string | number | boolean | ReadonlyArray<string | number> | undefined;

export interface WriteOptions {
  /** Idempotency-Key: a fresh UUID by default; null sends none. */
  key?: string | null;
}
export interface ConditionalOptions extends WriteOptions {
  /** If-Match: W/"1" by default; null sends none. */
  ifMatch?: string | null;
}
export interface BodyOptions extends ConditionalOptions {
  contentType?: string;
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head' | 'options';

export function asPartner(target: AppTarget, who?: Caller | (() => Caller)) {
  const caller = (): Caller => {
    const resolved = typeof who === 'function' ? who() : (who ?? target.agency);
    if (!resolved) throw new Error('asPartner: no caller given and the target has no ready-made agency');
    return resolved;
  };
  const read = (path: string) => request(target.app).get(path).set(caller().auth);
  const write = (method: 'post' | 'patch' | 'delete', path: string, options: BodyOptions, body?: unknown): Test => {
    let call = request(target.app)[method](path).set(caller().auth);
    if (options.key !== null) call = call.set('Idempotency-Key', options.key ?? newKey());
    if (options.ifMatch !== undefined && options.ifMatch !== null) call = call.set('If-Match', options.ifMatch);
    if (body === undefined) return options.contentType === undefined ? call : call.set('Content-Type', options.contentType);
    return call.set('Content-Type', options.contentType ?? 'application/json').send(typeof body === 'string' ? body : JSON.stringify(body));
  };
  const conditional = (options: BodyOptions): BodyOptions => ({ ...options, ifMatch: options.ifMatch === undefined ? 'W/"1"' : options.ifMatch });
  const mergePatch = (options: BodyOptions): BodyOptions => ({
    ...conditional(options),
    contentType: options.contentType ?? 'application/merge-patch+json',
  });
  const coTenantPath = (id: number | string, cpfCnpj: string) => `${COLLECTION}/${id}/co-tenants/${encodeURIComponent(cpfCnpj)}`;

  const api = {
    /** Any method and path (from the server root), for routes and methods the contract does not have. */
    request: (method: Method, path: string) => request(target.app)[method](path).set(caller().auth),
    /** GET of a link the API answered with (Location, `_links`), absolute or not. */
    follow: (href: string) => {
      const url = new URL(href, 'http://127.0.0.1');
      return request(target.app).get(`${url.pathname}${url.search}`).set(caller().auth);
    },

    list: (query: ListQuery | Query = []) => read(withQuery(COLLECTION, query)),
    create: (body: unknown, options: BodyOptions = {}) => write('post', COLLECTION, options, body),
    get: (id: number | string) => read(itemPath(id)),
    /** A merge patch (application/merge-patch+json). */
    patch: (id: number | string, body: unknown, options: BodyOptions = {}) => write('patch', itemPath(id), mergePatch(options), body),
    history: (id: number | string, query: Query = { page: 0, pageSize: 20 }) => read(withQuery(`${COLLECTION}/${id}/history`, query)),
    comment: (id: number | string, comment: Schemas['CommentCreate']['comment'], options: WriteOptions = {}) =>
      write('post', `${COLLECTION}/${id}/comments`, options, { comment }),
    signatures: (id: number | string, query: Query = { page: 0, pageSize: 20 }) => read(withQuery(`${COLLECTION}/${id}/signatures`, query)),
    accept: (id: number | string, options: WriteOptions = {}) => write('post', `${COLLECTION}/${id}/accept`, options),
    refuse: (id: number | string, options: WriteOptions = {}) => write('post', `${COLLECTION}/${id}/refuse`, options),
    /** Sandbox time travel: `{ by }` or `{ to }` (a body given as a string is sent as it is). */
    advanceClock: (id: number | string, body: unknown, options: WriteOptions = {}) =>
      write('post', `${COLLECTION}/${id}/advance-clock`, options, body),
    addCoTenant: (id: number | string, body: unknown, options: BodyOptions = {}) =>
      write('post', `${COLLECTION}/${id}/co-tenants`, conditional(options), body),
    patchCoTenant: (id: number | string, cpfCnpj: string, body: unknown, options: BodyOptions = {}) =>
      write('patch', coTenantPath(id, cpfCnpj), mergePatch(options), body),
    removeCoTenant: (id: number | string, cpfCnpj: string, options: ConditionalOptions = {}) =>
      write('delete', coTenantPath(id, cpfCnpj), conditional(options)),

    balance: () => read(`${FINANCIAL}/balance`),
    dailySummaries: (query: SummaryQuery | Query) => read(withQuery(`${FINANCIAL}/daily-summaries`, query)),
    statementEntries: (query: StatementQuery | Query) => read(withQuery(`${FINANCIAL}/statement-entries`, query)),

    openApiJson: () => read(`${API}/openapi.json`),
    openApiYaml: () => read(`${API}/openapi.yaml`),

    /** POST of the token endpoint as a form, without credentials: add them with `.auth(id, secret)`. */
    tokenRequest: () => request(target.app).post(TOKEN_PATH).type('form'),

    /** Creates a valid guarantee (the factory's body with `overrides`) and returns it; throws unless 201. */
    newGuarantee: async (overrides: Record<string, unknown> = {}): Promise<Guarantee> => {
      const response = await api.create(guaranteeBody(overrides));
      if (response.status !== 201) throw new Error(`create failed: ${response.status} ${response.text}`);
      return response.body as Guarantee;
    },
    /** The guarantee as read and its ETag; throws unless 200. */
    current: async (id: number): Promise<Guarantee & { etag: string }> => {
      const response = await api.get(id);
      if (response.status !== 200) throw new Error(`GET ${id}: ${response.status} ${response.text}`);
      return { ...(response.body as Guarantee), etag: response.headers['etag'] as string };
    },
    /** The whole history, oldest first, read page by page as a partner would. */
    historyEntries: (id: number): Promise<HistoryEntry[]> => allPages(target, caller(), `${COLLECTION}/${id}/history`, 'historyEntries'),
    /** Every current signature record, read page by page. */
    signatureRecords: (id: number): Promise<Signature[]> => allPages(target, caller(), `${COLLECTION}/${id}/signatures`, 'signatures'),
  };
  return api;
}

/** The access token of a client; throws unless the token endpoint answers 200. */
export async function issueToken(target: AppTarget, clientId: string, clientSecret: string, scope?: string): Promise<string> {
  const form: Record<string, string> = { grant_type: 'client_credentials' };
  if (scope !== undefined) form.scope = scope;
  const response = await asPartner(target, ANONYMOUS).tokenRequest().auth(clientId, clientSecret).send(form);
  if (response.status !== 200) throw new Error(`token request failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.access_token as string;
}

/** `path` with the query appended; the bare path stays one of the values the request finder sees. */
export function withQuery(path: string, query: Query): string {
  const search = queryString(query);
  return search ? `${path}?${search}` : path;
}

function queryString(query: Query): string {
  if (typeof query === 'string') return query.replace(/^\?/, '');
  const pairs: Array<[string, string]> = [];
  const entries: ReadonlyArray<readonly [string, QueryValue]> = Array.isArray(query) ? query : Object.entries(query);
  for (const [name, value] of entries) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) pairs.push([name, String(one)]);
  }
  return new URLSearchParams(pairs).toString();
}

/** Every item of a paged list (each page must answer 200), following `_links.next`. */
async function allPages<T>(target: AppTarget, caller: Caller, path: string, embedded: string): Promise<T[]> {
  const items: T[] = [];
  for (let page = 0; ; page += 1) {
    const response = await request(target.app)
      .get(withQuery(path, { page, pageSize: 200 }))
      .set(caller.auth);
    if (response.status !== 200) throw new Error(`GET ${path} page ${page}: ${response.status} ${response.text}`);
    items.push(...(response.body._embedded[embedded] as T[]));
    if (!response.body._links.next) return items;
  }
}

/** Timestamps as the API writes them. */
export const RFC3339_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** A correlation id the service generated (a UUID), not one the partner sent. */
export const GENERATED_CORRELATION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export type PartnerApi = ReturnType<typeof asPartner>;
