/**
 * Writes an HttpResult as it is, through Node's own response API: the pipeline has decided the
 * status and every header, so nothing between it and the socket decides again (Express's
 * `res.json`/`res.send` would look up media types, re-check freshness and set headers on their own,
 * work a get by id paid on every answer). A HEAD answer gets the GET's headers, Content-Length
 * included, and Node leaves the body out.
 */
import type { ServerResponse } from 'node:http';
import { PreparedBytes, SerializedJson, type HttpResult } from './http-result';

export function sendResult(res: ServerResponse, result: HttpResult): void {
  res.statusCode = result.status;
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
  if (result.body === undefined || result.status === 304 || result.status === 204) {
    res.end();
    return;
  }
  if (result.body instanceof PreparedBytes) {
    res.setHeader('Content-Type', result.body.contentType);
    res.setHeader('Content-Length', result.body.bytes.length);
    res.end(result.body.bytes);
    return;
  }
  const text = result.body instanceof SerializedJson ? result.body.text : result.contentType ? String(result.body) : JSON.stringify(result.body);
  res.setHeader('Content-Type', `${result.contentType ?? 'application/json'}; charset=utf-8`);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
