/** Structured JSON logs (pino). Credentials and tokens are redacted wherever they could appear. */
import pino, { type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'rental-guarantee-api' },
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', '*.client_secret', '*.clientSecret', '*.access_token'],
      censor: '[redacted]',
    },
  });
}
