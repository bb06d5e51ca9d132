/**
 * One HTTP attempt of a webhook: POST with node:http(s) (no redirect is ever followed), a timeout
 * over the whole exchange, at most 64 KiB of the answer read (then the socket is dropped), and the
 * connection made only to an address that url-safety.ts checked (DNS rebinding).
 */
import http from 'node:http';
import https from 'node:https';
import { literalAllowed, pinnedLookup, REFUSED_AT_DELIVERY, RefusedAtDelivery, type UrlPolicy } from './url-safety';

const MAX_RESPONSE_BYTES = 64 * 1024;

export interface AttemptOutcome {
  /** The receiver's status; absent when no answer came. */
  status?: number;
  retryAfter?: string;
  error?: string;
  latencyMs: number;
}

export async function postWebhook(
  target: string,
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs: number; policy: UrlPolicy; signal?: AbortSignal },
): Promise<AttemptOutcome> {
  const started = process.hrtime.bigint();
  const latencyMs = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
  const url = new URL(target);
  // A host written as an address is never looked up (so never reaches pinnedLookup): check it here.
  if (!literalAllowed(url, options.policy)) return { error: REFUSED_AT_DELIVERY, latencyMs: 0 };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<AttemptOutcome>((resolve) => {
    const request = client.request(url, {
      method: 'POST',
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'user-agent': 'RentalGuarantee-Webhooks/1',
      },
      lookup: pinnedLookup(url, options.policy) as never,
      signal: options.signal ? AbortSignal.any([AbortSignal.timeout(options.timeoutMs), options.signal]) : AbortSignal.timeout(options.timeoutMs),
      agent: false,
    });
    request.on('response', (response) => {
      let read = 0;
      const finish = () => {
        const retryAfter = response.headers['retry-after'];
        resolve({ status: response.statusCode, ...(retryAfter ? { retryAfter } : {}), latencyMs: latencyMs() });
      };
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_RESPONSE_BYTES) {
          response.destroy();
          finish();
        }
      });
      response.on('end', finish);
      response.on('error', finish);
    });
    request.on('error', (error: Error & { code?: string }) => {
      // Timers run on the event loop's clock, read at the start of a loop turn: on a busy machine an
      // attempt cut at the timeout can measure a millisecond or two less here. It lasted the timeout.
      const latency = error.name === 'TimeoutError' ? Math.max(latencyMs(), options.timeoutMs) : latencyMs();
      resolve({ error: failureOf(error, options.timeoutMs), latencyMs: latency });
    });
    request.end(body);
  });
}

/**
 * What an attempt that got no answer records: the error's code, never its message, which names the
 * address connected to (`connect ECONNREFUSED 10.0.0.7:443`): what a name resolves to stays ours.
 */
function failureOf(error: Error & { code?: string }, timeoutMs: number): string {
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return `timeout after ${timeoutMs} ms`;
  if (error instanceof RefusedAtDelivery) return REFUSED_AT_DELIVERY;
  return error.code ? `no answer: ${error.code}` : 'no answer: the connection failed';
}
