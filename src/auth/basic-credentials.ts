/**
 * HTTP Basic client authentication at the token endpoint (RFC 6749 §2.3.1), read before the OAuth
 * library sees the request: the brute-force protection needs the client ID, and some answers need
 * no database at all. No value read here is ever echoed in an answer or a log.
 */
import { type Environment, otherEnvironment } from './opaque-secrets';

export type BasicReading =
  | { ok: true; /** Form-decoded. */ clientId: string }
  | { ok: false; status: 400 | 401; error: 'invalid_request' | 'invalid_client'; description: string };

/** C0 controls (NUL included), DEL and C1 controls: never part of a client ID or secret. */
function hasControlCharacter(value: string): boolean {
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

export function readBasicCredentials(authorization: string | undefined, environment: Environment): BasicReading {
  const invalidClient = (description: string): BasicReading => ({ ok: false, status: 401, error: 'invalid_client', description });
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '');
  if (!match) return invalidClient('Client authentication with HTTP Basic (client ID and client secret) is required.');
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  if (separator <= 0) return invalidClient('The Basic credentials must be "<client_id>:<client_secret>".');
  const [rawId, rawSecret] = [decoded.slice(0, separator), decoded.slice(separator + 1)];
  const [clientId, secret] = [formDecode(rawId), formDecode(rawSecret)];
  // PostgreSQL cannot even compare a text with NUL in it: refuse these as malformed, before any lookup.
  if ([rawId, rawSecret, clientId, secret].some(hasControlCharacter)) {
    return { ok: false, status: 400, error: 'invalid_request', description: 'The client ID and client secret must not contain control characters.' };
  }
  const other = otherEnvironment(clientId, environment);
  if (other) return invalidClient(`This client belongs to the ${other} environment; use the ${other} token endpoint.`);
  return { ok: true, clientId };
}

/** RFC 6749 §2.3.1: the Basic credentials are form-urlencoded (`+` is a space); the library does not decode them. */
export function formDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return value;
  }
}
