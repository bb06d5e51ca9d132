/**
 * OAuth 2.0 client credentials (RFC 6749 §4.4): one token, reused by every call until shortly
 * before it expires, and ONE token request in flight however many callers need a new one at the
 * same moment. Tokens last 900 s; asking for one per call would cost the partner a slow request
 * each time (the service hashes secrets with scrypt) and could meet rate limits.
 *
 * The secret lives in a private field: it is never logged, never part of an error, and
 * console.log(client) does not show it.
 */
import { PartnerAuthError, PartnerClientError } from './errors.js';
import type { FetchLike } from './transport.js';

export interface TokenProviderOptions {
  /** {auth_url}: the OAuth base address, without /oauth2/token. */
  authUrl: string;
  clientId: string;
  clientSecret: string;
  /** Scopes to ask for; none means every permission of the credential. */
  scopes?: string[];
  /** Renew this many seconds before expiry (default 60), so that no call carries a dying token. */
  refreshMarginSeconds?: number;
  fetch: FetchLike;
  now?: () => number;
}

interface CachedToken {
  token: string;
  expiresAt: number;
}

export class TokenProvider {
  readonly #options: TokenProviderOptions;
  readonly #now: () => number;
  #cached: CachedToken | undefined;
  #inflight: Promise<string> | undefined;

  constructor(options: TokenProviderOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** A valid access token: the cached one, or the one being fetched, or a new one. */
  token(): Promise<string> {
    const margin = (this.#options.refreshMarginSeconds ?? 60) * 1000;
    if (this.#cached && this.#cached.expiresAt - margin > this.#now()) return Promise.resolve(this.#cached.token);
    this.#inflight ??= this.#fetchToken().finally(() => {
      this.#inflight = undefined;
    });
    return this.#inflight;
  }

  /** Drops a token the API refused (revoked secret, clock skew), so the next call gets a new one. */
  invalidate(token: string): void {
    if (this.#cached?.token === token) this.#cached = undefined;
  }

  async #fetchToken(): Promise<string> {
    const { authUrl, clientId, clientSecret, scopes } = this.#options;
    // Expiry counts from the request, not the answer: a slow answer must not stretch it.
    const requestedAt = this.#now();
    const body = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scopes && scopes.length > 0) body.set('scope', scopes.join(' '));
    const response = await this.#options.fetch(
      new Request(`${authUrl.replace(/\/+$/, '')}/oauth2/token`, {
        method: 'POST',
        headers: {
          // RFC 6749 §2.3.1: id and secret are form-urlencoded before Basic encoding.
          Authorization: `Basic ${btoa(`${formEncode(clientId)}:${formEncode(clientSecret)}`)}`,
          'Content-Type': 'application/x-www-form-urlencoded',
          Accept: 'application/json',
        },
        body,
      }),
    );
    const json = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    if (!response.ok) {
      const error = typeof json?.['error'] === 'string' ? json['error'] : `http_${response.status}`;
      const description = typeof json?.['error_description'] === 'string' ? json['error_description'] : undefined;
      throw new PartnerAuthError(response.status, error, description);
    }
    const token = json?.['access_token'];
    const expiresIn = json?.['expires_in'];
    if (typeof token !== 'string' || typeof expiresIn !== 'number') {
      throw new PartnerClientError('the token endpoint answered without access_token or expires_in');
    }
    this.#cached = { token, expiresAt: requestedAt + expiresIn * 1000 };
    return token;
  }
}

function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}
