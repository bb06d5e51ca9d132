/**
 * Forwards one event of the feed to the partner's local handler exactly as the service would
 * deliver it: POST, `Content-Type: application/json`, the event as the body, and the Standard
 * Webhooks headers (`webhook-id` = the event's id, `webhook-timestamp` = now, `webhook-signature`
 * under the local secret), so the handler's verifyWebhook (or any Standard Webhooks library)
 * verifies it unchanged, given the local secret.
 */
import { Webhook } from 'standardwebhooks';

export interface ForwardedAnswer {
  /** The handler's status, or undefined when it did not answer (not listening, timed out). */
  status: number | undefined;
  /** Why there was no answer. */
  failure?: string;
  durationMs: number;
}

export interface ForwardOptions {
  url: string;
  secret: string;
  timeoutMs: number;
  userAgent: string;
}

export async function forward(event: { id: string }, options: ForwardOptions): Promise<ForwardedAnswer> {
  const body = JSON.stringify(event);
  const signedAt = new Date();
  const started = performance.now();
  try {
    const response = await fetch(options.url, {
      method: 'POST',
      redirect: 'manual', // as the service: a redirect is an answer, never followed
      headers: {
        'content-type': 'application/json',
        'user-agent': options.userAgent,
        'webhook-id': event.id,
        'webhook-timestamp': String(Math.floor(signedAt.getTime() / 1000)),
        'webhook-signature': new Webhook(options.secret).sign(event.id, signedAt, body),
      },
      body,
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    await response.body?.cancel();
    return { status: response.status, durationMs: Math.round(performance.now() - started) };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    const failure =
      error instanceof Error && error.name === 'TimeoutError' ? `no answer within ${options.timeoutMs} ms` : (cause?.code ?? String(error));
    return { status: undefined, failure, durationMs: Math.round(performance.now() - started) };
  }
}
