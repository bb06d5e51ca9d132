/** An event row as partners see it, in a webhook body and in GET /v1/events. */
import { decodeCursor, encodeCursor } from '../validation/cursor';
import { EVENT_API_VERSION } from './event-types';

export interface EventRow {
  id: string;
  txId: bigint;
  position: bigint;
  companyId: string;
  type: string;
  occurredAt: Date;
  data: unknown;
}

export interface EventEnvelope {
  id: string;
  type: string;
  occurredAt: string;
  agencyId: string;
  apiVersion: string;
  cursor: string;
  data: unknown;
}

export function toEnvelope(row: EventRow): EventEnvelope {
  return {
    id: row.id,
    type: row.type,
    occurredAt: row.occurredAt.toISOString(),
    agencyId: row.companyId,
    apiVersion: EVENT_API_VERSION,
    cursor: cursorOf(row.txId, row.position),
    data: row.data,
  };
}

/** The feed's opaque cursor: the writing transaction's id and the event's position (src/validation/cursor.ts). */
export function cursorOf(txId: bigint, position: bigint): string {
  return encodeCursor([txId, position]);
}

/** The cursor's parts, or null when it is not one of ours. */
export function parseCursor(cursor: string): { txId: bigint; position: bigint } | null {
  const parts = decodeCursor(cursor, 2);
  return parts ? { txId: parts[0]!, position: parts[1]! } : null;
}
