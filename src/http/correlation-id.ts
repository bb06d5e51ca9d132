/**
 * Every response carries X-Correlation-Id: the caller's value when it is well-formed, otherwise a
 * new one. The same value is in the error body and in every log line of the request. Every
 * response also carries `X-Content-Type-Options: nosniff` (set here, the first step of every answer).
 */
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

const WELL_FORMED = /^[A-Za-z0-9._:-]{1,128}$/;

declare module 'express-serve-static-core' {
  interface Request {
    correlationId: string;
  }
}

/** The caller's value when it is well-formed, otherwise a new one. */
export function correlationIdOf(supplied: string | string[] | undefined): string {
  return typeof supplied === 'string' && WELL_FORMED.test(supplied) ? supplied : randomUUID();
}

export function correlationId(req: Request, res: Response, next: NextFunction): void {
  req.correlationId = correlationIdOf(req.get('x-correlation-id'));
  res.setHeader('X-Correlation-Id', req.correlationId);
  // Issue 34 item 7: no answer, error or page, is ever read by a browser as another type than it says.
  res.setHeader('X-Content-Type-Options', 'nosniff');
  next();
}
