/** Structured JSON logs (pino). Credentials and tokens are redacted wherever they could appear. */
import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * `destination`: where the lines go (stdout by default; tests capture them); `fields` join every
 * line (a cluster worker's id).
 */
export function createLogger(level: string, destination?: DestinationStream, fields: Record<string, unknown> = {}): Logger {
  const options = {
    level,
    base: { service: 'rental-guarantee-api', ...fields },
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', '*.client_secret', '*.clientSecret', '*.access_token'],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * Query parameter names whose values are never logged: OAuth and bearer credentials (RFC 6749,
 * RFC 6750 §2.3 `access_token`) and anything named like a secret, token, password or key.
 * Clients sometimes put them in the URL although nothing here reads them from there.
 */
const SENSITIVE_PARAMETER = /secret|token|passw|pwd|assertion|api[-_]?key|^auth|signature|session|^credentials?$|^code$|^key$/i;

/**
 * The URL for the request log: path and every query parameter name kept, the values of sensitive
 * parameters replaced by `[redacted]`. Names are matched after percent-decoding, so an encoded name
 * (`client%5Fsecret`) is redacted as well.
 */
export function redactUrl(url: string): string {
  const queryStart = url.indexOf('?');
  if (queryStart < 0) return url;
  const query = url
    .slice(queryStart + 1)
    .split('&')
    .map((pair) => {
      const nameEnd = pair.indexOf('=');
      const rawName = nameEnd < 0 ? pair : pair.slice(0, nameEnd);
      return SENSITIVE_PARAMETER.test(decodeName(rawName)) ? `${rawName}=[redacted]` : pair;
    });
  return `${url.slice(0, queryStart)}?${query.join('&')}`;
}

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    // Not decodable: test what can be read of it (a stray % must not let a name through).
    return name.replace(/%[0-9a-f]{2}/gi, (escape) => String.fromCharCode(parseInt(escape.slice(1), 16)));
  }
}
