/**
 * Requests to the operations of operation-table.ts: their paths for a target guarantee, co-tenant
 * or webhook endpoint, and a valid request (one the service would accept) that hostile and
 * isolation suites then spoil one part of.
 */
import { randomUUID } from 'node:crypto';
import type { OperationEntry } from './operation-table';
import { API } from './partner-api';
import { withWebhookIds, type WebhookTarget } from './webhook-operations';

export interface Target {
  id: number | string;
  /** Current ETag of the guarantee, for If-Match. */
  etag: string;
  /** A co-tenant of the guarantee. */
  coTenantCpfCnpj: string;
  /** The webhook endpoint and delivery of the webhook writes ({endpointId}, {deliveryId}; its ETag for If-Match). */
  webhook?: WebhookTarget;
}

export interface BuiltRequest {
  method: string;
  /** Absolute path under the server root (API base path included), query included. */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** Encodes a path value unless told it is already raw (hostile tests send malformed encodings). */
export function pathOf(entry: OperationEntry, target: Pick<Target, 'id' | 'coTenantCpfCnpj' | 'webhook'>, raw = false): string {
  const encode = (value: string | number) => (raw ? String(value) : encodeURIComponent(String(value)));
  const path = entry.path.replace('{id}', encode(target.id)).replace('{cpfCnpj}', encode(target.coTenantCpfCnpj));
  return `${API}${withWebhookIds(path, target.webhook, encode)}`;
}

/** The current ETag of what the operation changes: the guarantee, or the webhook endpoint. */
export function entityTagOf(entry: OperationEntry, target: Target): string {
  return entry.path.includes('{endpointId}') ? target.webhook!.etag : target.etag;
}

export function queryString(pairs: Array<[string, string]>): string {
  const search = new URLSearchParams(pairs).toString();
  return search ? `?${search}` : '';
}

/** A request that the service would accept (2xx) for this target, with a new idempotency key. */
export function validRequest(entry: OperationEntry, target: Target, authorization: string | undefined): BuiltRequest {
  const headers: Record<string, string> = {};
  if (authorization !== undefined && entry.access !== 'public') headers['Authorization'] = authorization;
  if (entry.method !== 'GET') headers['Idempotency-Key'] = randomUUID();
  if (entry.ifMatch) headers['If-Match'] = entityTagOf(entry, target);
  let body: string | undefined;
  if (entry.body) {
    headers['Content-Type'] = entry.mediaType!;
    body = JSON.stringify(entry.body());
  }
  return { method: entry.method, path: pathOf(entry, target) + queryString(entry.query?.() ?? []), headers, body };
}
