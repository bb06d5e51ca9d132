/**
 * createPartnerClient: the typed client of the Rental Guarantee Partner API. Calls are generated
 * from the published document (openapi-fetch over openapi-typescript types); around them, the
 * parts a partner would otherwise write by hand and get wrong: the token (reused, one request in
 * flight), an Idempotency-Key per logical write kept on every retry, retries only where safe,
 * If-Match from the latest ETag, and typed errors.
 */
import createClient, { type Client } from 'openapi-fetch';
import { documents } from './documents.js';
import { coTenants } from './co-tenants.js';
import { warnOncePerOperation, type DeprecationHandler } from './deprecation.js';
import { EtagTracker } from './etags.js';
import { financial } from './financial.js';
import type { paths } from './generated/partner-api.js';
import { rentalInsurances } from './rental-insurances.js';
import { DEFAULT_RETRY, type RetryOptions } from './retry-policy.js';
import { TokenProvider } from './token-provider.js';
import { createTransport, type FetchLike } from './transport.js';

export interface PartnerClientOptions {
  /** {base_url}, e.g. https://sandbox.api.rentalguarantee.example/rental-guarantee */
  baseUrl: string;
  /** {auth_url}, e.g. https://sandbox.auth.rentalguarantee.example/auth */
  authUrl: string;
  clientId: string;
  /** From your secret store; never logged or put in an error by this client. */
  clientSecret: string;
  /** Scopes to ask for; default: every permission of the credential. */
  scopes?: string[];
  retry?: Partial<RetryOptions>;
  /** Time limit of each attempt, in ms (default 30,000). */
  timeoutMs?: number;
  /** Renew the token this many seconds before it expires (default 60). */
  refreshMarginSeconds?: number;
  /** Your own fetch (a proxy agent, tracing); default: the global fetch. */
  fetch?: FetchLike;
  /** The clock, in ms (default Date.now); tests move it to make tokens expire. */
  now?: () => number;
  /**
   * Called for every answer that carries `Deprecation` or `Sunset` (the operation will stop
   * answering): send it to your logs or alerts. Default: one console warning per operation.
   */
  onDeprecation?: DeprecationHandler;
}

export function createPartnerClient(options: PartnerClientOptions) {
  const baseFetch: FetchLike = options.fetch ?? ((request) => fetch(request));
  const retry = { ...DEFAULT_RETRY, ...options.retry };
  const timeoutMs = options.timeoutMs ?? 30_000;
  const onDeprecation = options.onDeprecation ?? warnOncePerOperation();
  const tokens = new TokenProvider({
    authUrl: options.authUrl,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    scopes: options.scopes,
    refreshMarginSeconds: options.refreshMarginSeconds,
    // Asking for a token again only mints another one: always safe to retry.
    fetch: createTransport({ fetch: baseFetch, retry, timeoutMs, retrySafe: () => true, now: options.now, onDeprecation }),
    now: options.now,
  });
  const transport = createTransport({
    fetch: baseFetch,
    retry,
    timeoutMs,
    token: () => tokens.token(),
    onUnauthorized: (token) => tokens.invalidate(token),
    now: options.now,
    onDeprecation,
  });
  /** The generated client itself, with the token and retries applied: for calls not wrapped below. */
  const api: Client<paths> = createClient<paths>({ baseUrl: options.baseUrl, fetch: transport });
  const etags = new EtagTracker();
  return {
    rentalInsurances: rentalInsurances({ api, etags }),
    coTenants: coTenants({ api, etags }),
    financial: financial({ api }),
    /** Documents of a guarantee: attachDocuments, listDocuments, downloadDocument (streamed to a file). */
    documents: documents({ api }),
    api,
    /** The latest ETag seen for a guarantee (what If-Match will send by default). */
    latestEtag: (id: number) => etags.latest(id),
    /** A valid access token (cached); for calls made outside this client. */
    accessToken: () => tokens.token(),
  };
}

export type PartnerClient = ReturnType<typeof createPartnerClient>;
