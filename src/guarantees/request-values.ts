/** Values the guarantee handlers read from a validated request. */
import { NotFound } from '../errors';
import type { Actor } from './history';
import { header, type OperationContext, type RequestContext } from '../http/operation';
import { parseIfMatch } from '../http/preconditions';

/** The path id; anything but a positive 64-bit integer cannot name a guarantee. */
export function guaranteeId(ctx: RequestContext): bigint {
  const raw = ctx.request.params['id'] ?? '';
  if (!/^[1-9]\d{0,18}$/.test(raw) || BigInt(raw) > 9223372036854775807n) throw new NotFound();
  return BigInt(raw);
}

export const partnerActor = (ctx: OperationContext): Actor => ({ name: ctx.principal.displayName, serviceAccount: true });

export const ifMatchOf = (ctx: RequestContext): number[] => parseIfMatch(header(ctx, 'if-match'));

export function queryList(ctx: RequestContext, name: string): string[] {
  const value = ctx.request.query[name];
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

export function queryValue(ctx: RequestContext, name: string): string | undefined {
  return queryList(ctx, name)[0];
}
