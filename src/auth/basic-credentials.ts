/**
 * HTTP Basic client authentication at the token endpoint (RFC 6749 §2.3.1), read once, before the
 * OAuth library sees the request: the brute-force protection and the secret's verification both use
 * this reading, and the library is handed the same credentials re-encoded (token-endpoint.ts), so
 * no other parser ever decides who the client is. No value read here is ever echoed in an answer or
 * a log.
 */
import { type Environment, otherEnvironment } from './opaque-secrets';

export type BasicReading =
  | {
      ok: true;
      /** Form-decoded. */
      clientId: string;
      /** Form-decoded. */
      secret: string;
      /** The one Authorization header that carries exactly these credentials, for the OAuth library. */
      canonicalHeader: string;
    }
  | { ok: false; status: 400 | 401; error: 'invalid_request' | 'invalid_client'; description: string };

/**
 * RFC 9110 §11.4 and RFC 7617: the scheme (any case), one or more spaces, then the base64 of
 * `<client_id>:<client_secret>`: `=` only as trailing padding. A TAB, a stray character or an `=`
 * inside is not Basic; lenient readers disagree about what such a header names, so it names nobody.
 */
const BASIC = /^Basic +([A-Za-z0-9+/]+={0,2})$/i;

/** RFC 6749 Appendix A: client IDs and secrets are VSCHAR (%x20-7E), before and after form-decoding. */
const VISIBLE_ASCII = /^[\x20-\x7e]*$/;

export function readBasicCredentials(authorization: string | undefined, environment: Environment): BasicReading {
  const invalidClient = (description: string): BasicReading => ({ ok: false, status: 401, error: 'invalid_client', description });
  if (authorization === undefined || authorization.trim() === '') {
    return invalidClient('Client authentication with HTTP Basic (client ID and client secret) is required.');
  }
  const match = BASIC.exec(authorization.trim());
  const bytes = match ? Buffer.from(match[1]!, 'base64') : undefined;
  if (!match || !bytes || !isCanonicalBase64(match[1]!, bytes)) {
    return invalidClient('The Authorization header is not valid HTTP Basic: "Basic", a space, then the base64 of "<client_id>:<client_secret>".');
  }
  const decoded = bytes.toString('utf8');
  const separator = decoded.indexOf(':');
  if (separator <= 0) return invalidClient('The Basic credentials must be "<client_id>:<client_secret>".');
  const [rawId, rawSecret] = [decoded.slice(0, separator), decoded.slice(separator + 1)];
  const [clientId, secret] = [formDecode(rawId), formDecode(rawSecret)];
  // Control characters (NUL included: PostgreSQL cannot even compare a text holding one) and
  // anything beyond visible ASCII are malformed, refused before any lookup.
  if (![rawId, rawSecret, clientId, secret].every((value) => VISIBLE_ASCII.test(value))) {
    return {
      ok: false,
      status: 400,
      error: 'invalid_request',
      description: 'The client ID and client secret must be visible ASCII characters, without control characters.',
    };
  }
  const other = otherEnvironment(clientId, environment);
  if (other) return invalidClient(`This client belongs to the ${other} environment; use the ${other} token endpoint.`);
  return { ok: true, clientId, secret, canonicalHeader: `Basic ${Buffer.from(`${rawId}:${rawSecret}`, 'ascii').toString('base64')}` };
}

/** The token is the base64 of its bytes, with or without its padding (no ignored bits, no stray `=`). */
function isCanonicalBase64(token: string, bytes: Buffer): boolean {
  const canonical = bytes.toString('base64');
  return token === canonical || token === canonical.replace(/=+$/, '');
}

/** RFC 6749 §2.3.1: the Basic credentials are form-urlencoded (`+` is a space); the library does not decode them. */
export function formDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return value;
  }
}
