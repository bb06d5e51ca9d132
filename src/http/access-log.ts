/**
 * The access log: the request's logger and its one line in the process's log (stdout). `req.log` is the process's pino logger with
 * the request's correlationId bound, so every line written for a request names it; when the
 * response is done (or the client went away), one `request completed` line says which request it
 * was (method, URL with secret-looking query values redacted: logger.ts), its status and its
 * response time in milliseconds.
 *
 * Written here rather than taken from pino-http: pino-http builds two child loggers per request and
 * serialises the request into them whether or not a line is written at the configured level, a
 * cost a get by id felt in its throughput (bench/results.md). Here nothing is built for a line that
 * is not written: the child logger is made when a line of the request first needs it (most
 * requests write none), and the completion line is awaited only when its level is enabled.
 *
 * Not the agencies' request log (src/request-log/, GET /v1/request-log), which stores a line per
 * partner request in the database for the agency to read (docs/architecture.md, "Two logs").
 */
import type { Express, NextFunction, Request, Response } from 'express';
import { redactUrl, type Logger } from '../logger';

declare module 'express-serve-static-core' {
  interface Request {
    /** The request's logger: every line carries its correlationId. */
    log: Logger;
    /** `log` once made. */
    madeLog?: Logger;
  }
}

export function accessLog(app: Express, logger: Logger) {
  // On the prototype of the app's requests: made on first use, then kept by the request.
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: Request): Logger {
      return (this.madeLog ??= logger.child({ correlationId: this.correlationId }));
    },
  });
  return (req: Request, res: Response, next: NextFunction): void => {
    if (logger.isLevelEnabled('info')) {
      const started = performance.now();
      res.once('close', () => {
        req.log.info(
          {
            req: { method: req.method, url: redactUrl(req.originalUrl) },
            res: { statusCode: res.statusCode },
            responseTime: Math.round(performance.now() - started),
          },
          res.writableFinished ? 'request completed' : 'request aborted',
        );
      });
    }
    next();
  };
}
