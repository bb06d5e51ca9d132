/** An event row as partners see it, in a webhook body and in GET /v1/events. */
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

const MAX_BIGINT = 2n ** 63n - 1n;

/** The feed's opaque cursor: the writing transaction's id and the event's position, base64url. */
export function cursorOf(txId: bigint, position: bigint): string {
  return Buffer.from(`${txId}.${position}`).toString('base64url');
}

/** The cursor's parts, or null when it is not one of ours. */
export function parseCursor(cursor: string): { txId: bigint; position: bigint } | null {
  const match = /^(\d{1,19})\.(\d{1,19})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) return null;
  const txId = BigInt(match[1]!);
  const position = BigInt(match[2]!);
  // Both are PostgreSQL bigints: 19 digits may still exceed 2^63 - 1, which no cursor of ours holds.
  return txId <= MAX_BIGINT && position <= MAX_BIGINT ? { txId, position } : null;
}
