/**
 * The rules of idempotent writes that need no database: the key, the request's fingerprint, and
 * what a stored outcome answers. Every POST, PATCH and DELETE runs through idempotent-write.ts.
 */
import { createHash } from 'node:crypto';
import { BadRequest, Conflict } from '../errors';
import { SerializedJson, type HttpResult } from './http-result';

/** Response headers that belong to the stored outcome and are replayed with it. */
export const REPLAYED_HEADERS = ['ETag', 'Service-Effects', 'Location'];

/** A finished write, as stored with its effect. */
export interface StoredOutcome {
  fingerprint: string;
  responseStatus: number;
  responseHeaders: Record<string, string>;
  responseBody: string | null;
  createdAt: Date;
}

/** 1 to 255 visible ASCII characters; the structured-field string form `"abc"` is unquoted first. */
export function parseIdempotencyKey(raw: string | undefined): string {
  if (raw === undefined) {
    throw new BadRequest('idempotency_key_required', 'This write requires an Idempotency-Key header.', ['Idempotency-Key: is required']);
  }
  let key = raw.trim();
  if (key.length >= 2 && key.startsWith('"') && key.endsWith('"')) key = key.slice(1, -1).replace(/\\(["\\])/g, '$1');
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) throw invalidKey();
  return key;
}

export function invalidKey(): BadRequest {
  return new BadRequest('idempotency_key_invalid', 'The Idempotency-Key must be 1 to 255 visible ASCII characters.', [
    'Idempotency-Key: must be 1 to 255 visible ASCII characters',
  ]);
}

export function keyInUse(): Conflict {
  return new Conflict('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry shortly.', {
    'Retry-After': '1',
  });
}

/** Method, path and the canonical JSON of the body. */
export function fingerprintOf(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method.toUpperCase()} ${path}\n`).update(canonicalJson(body)).digest('base64url');
}

/** JSON with object keys sorted at every level, so key order and whitespace do not matter. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return '';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  const entries = Object.keys(value as object)
    .sort()
    .map((name) => `${JSON.stringify(name)}:${canonicalJson((value as Record<string, unknown>)[name])}`);
  return `{${entries.join(',')}}`;
}

/** The stored outcome, replayed, when the request is the same; 400 when the key was used for another. */
export function replayOrRefuse(stored: StoredOutcome, fingerprint: string): HttpResult {
  if (stored.fingerprint !== fingerprint) {
    throw new BadRequest('idempotency_key_reused', 'This Idempotency-Key was already used for a different request; use a new key for a new write.', [
      'Idempotency-Key: already used with another method, path or body',
    ]);
  }
  return {
    status: stored.responseStatus,
    headers: { ...stored.responseHeaders, 'Idempotent-Replay': 'true' },
    body: stored.responseBody === null ? undefined : new SerializedJson(stored.responseBody),
  };
}

export function replayedHeadersOf(headers: Record<string, string>): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) if (headers[name] !== undefined) picked[name] = headers[name];
  return picked;
}
