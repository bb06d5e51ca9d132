/**
 * A guarantee's own time. Every guarantee lives on the wall clock except a sandbox guarantee whose
 * clock a partner advanced (src/sandbox/time-travel.ts): its clock runs `clockOffsetMs` ahead, and
 * each of its changes is stamped with that time (history `createdAt`, events' `occurredAt`,
 * `updatedAt`, `approvedAt`, `terminatedAt`, the ledger entries' day).
 */
import type { LockedGuarantee } from './guarantee-repository';

/** When a change of `guarantee` happens, or undefined for "now on the wall clock" (the columns' defaults then apply). */
export function changeTime(guarantee: Pick<LockedGuarantee, 'clockOffsetMs' | 'at'>): Date | undefined {
  if (guarantee.at) return guarantee.at;
  const offset = guarantee.clockOffsetMs ?? 0n;
  return offset === 0n ? undefined : new Date(Date.now() + Number(offset));
}
