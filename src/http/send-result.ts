/** Writes an HttpResult to Express's response. */
import type { Response } from 'express';
import { SerializedJson, type HttpResult } from './http-result';

export function sendResult(res: Response, result: HttpResult): void {
  res.status(result.status);
  if (result.headers) res.set(result.headers);
  if (result.body === undefined || result.status === 304 || result.status === 204) {
    res.end();
  } else if (result.body instanceof SerializedJson) {
    res.type('application/json').send(result.body.text);
  } else if (result.contentType) {
    res.type(result.contentType).send(result.body);
  } else {
    res.json(result.body);
  }
}
