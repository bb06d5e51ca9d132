/**
 * Structured logs (pino). Credentials and tokens are redacted wherever they could appear. JSON lines
 * for a log collector; readable lines (pino-pretty) for a person at a terminal (LOG_FORMAT).
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import { logTraceFields, tracingOn } from './tracing/tracing';

export type { Logger };

export type LogFormat = 'json' | 'pretty';

/**
 * `destination`: where the lines go (stdout by default; tests capture them); `fields` join every
 * line (a cluster worker's id); `format`: JSON lines, or pino-pretty's readable lines on stdout.
 * With tracing on, a line written inside a span carries its `trace_id` and `span_id`
 * (tracing/tracing.ts).
 */
export function createLogger(
  level: string,
  destination?: DestinationStream,
  fields: Record<string, unknown> = {},
  format: LogFormat = 'json',
): Logger {
  const options = {
    level,
    base: { service: 'rental-guarantee-api', ...fields },
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'headers.authorization',
        '*.client_secret',
        '*.clientSecret',
        '*.access_token',
        // A webhook endpoint's signing secrets, should an endpoint ever be logged.
        '*.secret',
        '*.previousSecret',
      ],
      censor: '[redacted]',
    },
    ...(tracingOn() ? { mixin: logTraceFields } : {}),
  };
  if (format === 'pretty') return pino(options, prettyStream(destination));
  return destination ? pino(options, destination) : pino(options);
}

/**
 * LOG_FORMAT=auto: readable lines for a person (standard output is a terminal) outside production;
 * JSON lines for anything else (a pipe, a file, a log collector, production).
 */
export function logFormat(setting: 'auto' | LogFormat, environment: string, stdoutIsTerminal = process.stdout.isTTY === true): LogFormat {
  if (setting !== 'auto') return setting;
  return stdoutIsTerminal && environment !== 'production' ? 'pretty' : 'json';
}

/** pino-pretty, loaded only when asked for (a JSON-logging process never loads it), in this thread (no transport worker). */
function prettyStream(destination?: DestinationStream): DestinationStream {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pretty = require('pino-pretty') as typeof import('pino-pretty');
  return pretty({
    colorize: destination === undefined ? process.stdout.isTTY === true : false,
    translateTime: 'SYS:HH:MM:ss.l',
    // Said once at start-up, or the same on every line of a process; an access line's request and
    // answer are its message (below).
    ignore: 'pid,hostname,service,req,res,responseTime',
    singleLine: true,
    messageFormat: (line, messageKey) => {
      const { req, res, responseTime } = line as { req?: { method?: string; url?: string }; res?: { statusCode?: number }; responseTime?: number };
      const message = String(line[messageKey] ?? '');
      return req && res ? `${req.method} ${req.url} ${res.statusCode} ${responseTime} ms (${message})` : message;
    },
    ...(destination ? { destination: destination as NodeJS.WritableStream } : {}),
  });
}

/**
 * Query parameter names whose values are never logged: OAuth and bearer credentials (RFC 6749,
 * RFC 6750 §2.3 `access_token`), signed-URL and webhook signatures, keys, passwords and one-time
 * codes, however they are spelt. Clients sometimes put them in the URL although nothing here reads
 * them from there. Redacting a harmless parameter costs a log reader a value; missing a secret
 * leaks it, so the rules lean wide. A name is compared lower-cased, with `-`, `_`, `.` and spaces
 * removed, and as the words those separators and camelCase delimit:
 *   - any name that contains one of SENSITIVE_PARTS (`client_secret`, `X-Amz-Signature`,
 *     `private_key`, `id_token`, `db_password`, `hmac_sha256`, `jwt`);
 *   - any name with one of SENSITIVE_WORDS as a whole word (`sig`, `webhook_sig`, `pass`,
 *     `db.pass`, `sas-key`), which would be too broad as substrings (`design`, `passenger`, `monkey`);
 *   - a few whole names (`code`, the OAuth authorization code; `credentials`; anything starting
 *     with `auth`).
 */
const SENSITIVE_PARTS = [
  'secret',
  'token',
  'passw',
  'passphrase',
  'passcode',
  'pwd',
  'assertion',
  'signature',
  'session',
  'hmac',
  'jwt',
  'bearer',
  'cookie',
  'apikey',
  'privatekey',
  'accesskey',
];
const SENSITIVE_WORDS = new Set(['sig', 'pass', 'key', 'pin', 'otp', 'totp', 'cvv', 'cvc', 'jws', 'jwe', 'sas', 'psk']);
const SENSITIVE_WHOLE = /^(?:auth.*|code|credentials?)$/;

export function isSensitiveParameter(name: string): boolean {
  const compact = name.toLowerCase().replace(/[-_.\s]+/g, '');
  if (SENSITIVE_WHOLE.test(compact) || SENSITIVE_PARTS.some((part) => compact.includes(part))) return true;
  const words = name.split(/[-_.\s[\]]+|(?<=[a-z0-9])(?=[A-Z])/).map((word) => word.toLowerCase());
  return words.some((word) => SENSITIVE_WORDS.has(word));
}

/**
 * Values that are secrets whatever they are called (issue 34 item 7: `?x=whsec_...` reached the
 * log): the service's own secrets and tokens by their prefixes (a webhook signing secret
 * `whsec_`, a client secret `sbx_cs_`/`prd_cs_`, an access token `sbx_at_`/`prd_at_`), a bearer
 * credential, and anything shaped like a JWT (`eyJ...` header and payload). Matched anywhere in a
 * percent-decoded query value or path segment, letters in any case.
 */
const SECRET_VALUE = /whsec_|\b(?:sbx|prd)_(?:cs|at)_|\bbearer\s|\beyJ[\w-]*\.eyJ/i;

export function isSecretLookingValue(value: string): boolean {
  return SECRET_VALUE.test(value);
}

/**
 * The URL for the access log (src/http/access-log.ts) and the traces: path and every query
 * parameter name kept, the values of sensitive parameters, and every value or path segment that
 * looks like a secret whatever its name, replaced by `[redacted]`. Names and values are matched
 * after percent-decoding, so an encoded name (`client%5Fsecret`) or value (`whsec%5F...`) is
 * redacted as well. Every log line that names a URL goes through here, at every level.
 */
export function redactUrl(url: string): string {
  const queryStart = url.indexOf('?');
  const path = (queryStart < 0 ? url : url.slice(0, queryStart))
    .split('/')
    .map((segment) => (isSecretLookingValue(decoded(segment)) ? '[redacted]' : segment))
    .join('/');
  if (queryStart < 0) return path;
  const query = url
    .slice(queryStart + 1)
    .split('&')
    .map((pair) => {
      const nameEnd = pair.indexOf('=');
      const rawName = nameEnd < 0 ? pair : pair.slice(0, nameEnd);
      const rawValue = nameEnd < 0 ? '' : pair.slice(nameEnd + 1);
      return isSensitiveParameter(decoded(rawName)) || isSecretLookingValue(decoded(rawValue)) ? `${rawName}=[redacted]` : pair;
    });
  return `${path}?${query.join('&')}`;
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    // Not decodable: test what can be read of it (a stray % must not let a name or value through).
    return text.replace(/%[0-9a-f]{2}/gi, (escape) => String.fromCharCode(parseInt(escape.slice(1), 16)));
  }
}
