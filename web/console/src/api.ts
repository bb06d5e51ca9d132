/**
 * The console's calls, typed from the contracts: openapi/back-office.yaml (every screen's data) and
 * openapi/console.yaml (sessions and passkeys), through openapi-fetch. The session is the HttpOnly
 * cookie the browser sends by itself; every call adds `X-Console-Request: 1`, which the service
 * requires of a session (a form or another site cannot send it). Nothing is kept in browser storage.
 */
import createClient, { type Middleware } from 'openapi-fetch';
import { errorWords } from './i18n';
import type { paths as BackOfficePaths, components as BackOffice } from '../../../src/generated/back-office-api';
import type { paths as ConsolePaths, components as Console } from '../../../src/generated/console-api';

export type Schemas = BackOffice['schemas'];
export type ConsoleSchemas = Console['schemas'];
export type ErrorBody = Schemas['Error'];

const consoleRequest: Middleware = {
  onRequest({ request }) {
    request.headers.set('X-Console-Request', '1');
    return request;
  },
};

const base = new URL('.', location.href).pathname.replace(/\/$/, '');
const backOfficeBase = document.querySelector<HTMLMetaElement>('meta[name="rg-back-office"]')?.content ?? '/back-office';

export const backOffice = createClient<BackOfficePaths>({ baseUrl: `${location.origin}${backOfficeBase}`, credentials: 'same-origin' });
backOffice.use(consoleRequest);
export const consoleApi = createClient<ConsolePaths>({ baseUrl: `${location.origin}${base}/api`, credentials: 'same-origin' });
consoleApi.use(consoleRequest);

/** A fresh key per logical write: a retry of the same action reuses it (the caller keeps it). */
export const newKey = (): string => crypto.randomUUID();
export const keyed = (key = newKey()) => ({ header: { 'Idempotency-Key': key } });

/** The error body's message (and details), or what went wrong on the way. */
export function problem(error: unknown): string {
  if (error && typeof error === 'object' && 'message' in error && 'code' in error) {
    const body = error as ErrorBody;
    return [errorWords(body.code) ?? body.message, ...(body.details ?? [])].join(' ');
  }
  return error instanceof Error ? error.message : String(error);
}

/** The data of a call, or throws its error body (screens show problem(error)). */
export async function must<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (error !== undefined || !response.ok) {
    if (response.status === 401) {
      location.hash = '#/sign-in';
    }
    throw error ?? new Error(`HTTP ${response.status}`);
  }
  return data as T;
}
