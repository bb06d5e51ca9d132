/** The one place where failures become the specification's error body. */
import type { Request, Response } from 'express';
import { ApiError } from '../errors';
import { cutText } from '../validation/bounded-text';
import type { HttpResult } from './http-result';
import { sendResult } from './send-result';
import { answeredUnavailable } from '../database/unavailable';
import { databaseFailed } from '../database/outage-log';

export interface ErrorBody {
  code: string;
  message: string;
  timestamp: string;
  details?: string[];
  correlationId?: string;
}

/**
 * The bounds every document declares for the error body (`Error`: `message` maxLength, `details`
 * maxItems and its items' maxLength; test/contract/stored-bounds.test.ts checks they agree). A
 * message or detail may quote what a partner sent (a field's name, a display name): it is cut here,
 * once for every error, so that no error answer, and no request log line made from one, grows with it.
 */
export const ERROR_BOUNDS = { messageChars: 500, details: 50, detailChars: 300 };

export function errorBody(error: ApiError, correlationId: string): ErrorBody {
  const body: ErrorBody = { code: error.code, message: cutText(error.message, ERROR_BOUNDS.messageChars), timestamp: new Date().toISOString() };
  if (error.details && error.details.length > 0) {
    body.details = error.details.slice(0, ERROR_BOUNDS.details).map((detail) => cutText(detail, ERROR_BOUNDS.detailChars));
  }
  body.correlationId = correlationId;
  return body;
}

/** Unknown errors are logged in full and answered with a generic 500 that reveals nothing. */
export function errorResult(req: Request, error: unknown): HttpResult {
  const apiError = toApiError(error);
  // An unavailable database is logged once per outage (outage-log.ts), not once per request; a 503
  // the service chose to answer (not ready, draining, busy with searches) is no failure at all.
  const answered503 = error instanceof ApiError && error.status === 503;
  if (apiError.status >= 500 && !answered503 && !databaseFailed(error)) req.log?.error({ err: error, status: apiError.status }, 'request failed');
  return { status: apiError.status, headers: apiError.headers, body: errorBody(apiError, req.correlationId) };
}

/** Answers an error that reached Express's error handler (outside an operation) as the pipeline answers one. */
export function sendError(req: Request, res: Response, error: unknown): void {
  sendResult(res, errorResult(req, error));
}

export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const bodyParserType = (error as { type?: string } | null)?.type;
  if (bodyParserType === 'entity.too.large') {
    return new ApiError(413, 'payload_too_large', 'The request body is larger than 100 KB.');
  }
  if (bodyParserType === 'encoding.unsupported' || bodyParserType === 'charset.unsupported') {
    return new ApiError(415, 'unsupported_media_type', 'The request body must be UTF-8 encoded.');
  }
  if (bodyParserType === 'request.aborted' || bodyParserType === 'request.size.invalid') {
    return new ApiError(400, 'bad_request', 'The request body could not be read.');
  }
  // A percent-encoding that does not decode cannot name any resource.
  if (error instanceof URIError) return new ApiError(404, 'not_found', 'Not found.');
  // Other body-reading failures (a Content-Encoding that does not match the bytes, a bad length...).
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new ApiError(400, 'bad_request', 'The request body could not be read as sent.');
  }
  if (answeredUnavailable(error)) {
    return new ApiError(503, 'service_unavailable', 'The service is temporarily unavailable; retry later.', undefined, {
      'Retry-After': '1',
    });
  }
  return new ApiError(500, 'internal_error', 'An unexpected error occurred; the request had no effect. Retry later.');
}
