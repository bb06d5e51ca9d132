/**
 * The partner's side of the topology test: requests that are retried as the contract tells a
 * partner to (a missing answer, 502/503/504: the same request again, with the same
 * Idempotency-Key, after Retry-After or a short pause), and a record of every answer seen.
 */
import { randomUUID } from 'node:crypto';
import { API_BASE, call, type FetchResult } from '../support/service-process';

export interface Attempted {
  final: FetchResult;
  /** Every status seen, the final one last (0: no answer). */
  seen: number[];
}

const RETRIED = new Set([0, 502, 503, 504]);

/** Sends until an answer that is not "try again" arrives, or `deadlineMs` passes. */
export async function untilAnswered(
  origin: string,
  method: string,
  pathAndQuery: string,
  headers: Record<string, string>,
  body?: unknown,
  deadlineMs = 60_000,
): Promise<Attempted> {
  const seen: number[] = [];
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const result = await call(origin, method, pathAndQuery, headers, body, 15_000);
    seen.push(result.status);
    if (!RETRIED.has(result.status) || Date.now() > deadline) return { final: result, seen };
    const retryAfter = Number(result.headers.get('retry-after') ?? '0');
    await new Promise((resolve) => setTimeout(resolve, Math.min(Math.max(retryAfter * 1000, 100), 1000)));
  }
}

/** A write: one key for every attempt of it. */
export function write(
  origin: string,
  method: string,
  pathAndQuery: string,
  auth: Record<string, string>,
  body?: unknown,
  extra: Record<string, string> = {},
) {
  return untilAnswered(origin, method, pathAndQuery, { ...auth, 'Idempotency-Key': randomUUID(), ...extra }, body);
}

export async function tokenFor(origin: string, credential: { clientId: string; clientSecret: string }): Promise<Record<string, string>> {
  const basic = Buffer.from(`${credential.clientId}:${credential.clientSecret}`).toString('base64');
  for (let attempt = 0; ; attempt++) {
    try {
      const issued = await fetch(`${origin}/auth/oauth2/token`, {
        method: 'POST',
        headers: { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
        signal: AbortSignal.timeout(15_000),
      });
      if (issued.status === 200) return { Authorization: `Bearer ${((await issued.json()) as { access_token: string }).access_token}` };
      if (attempt > 20 || !RETRIED.has(issued.status)) throw new Error(`token: ${issued.status} ${await issued.text()}`);
    } catch (error) {
      if (attempt > 20) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

export { API_BASE };
