/**
 * A secret's last use (issue 37): when it last obtained a token, from which address, and how many
 * tokens it obtained in the last 24 hours. The token endpoint records each issued token here (one
 * statement); credential views read it. What a director watches during a rotation: the new secret
 * starts issuing tokens, the old one stops, then it is safe to revoke the old one.
 * Access tokens themselves are deleted when they expire, so the count lives in hourly rows.
 */
import type { Queryable } from '../database/prisma-client';

/** How long the hourly counts are kept (housekeeping deletes older ones). */
export const TOKEN_HOURS_KEPT_HOURS = 48;

export interface SecretUse {
  lastTokenAt: Date | null;
  lastTokenAddress: string | null;
  /** Tokens obtained with the secret in the last 24 hours (whole hours: up to one hour more). */
  tokensLast24h: number;
}

/** Called once per token issued with the secret, after the token is stored. */
export async function recordTokenIssued(db: Queryable, secretId: string, address: string, at = new Date()): Promise<void> {
  await db.$executeRaw`
    WITH used AS (
      UPDATE credential_secrets SET last_token_at = ${at}, last_token_address = ${address.slice(0, 45)}
      WHERE id = ${secretId}::uuid
    )
    INSERT INTO secret_token_hours (secret_id, hour, count) VALUES (${secretId}::uuid, date_trunc('hour', ${at}::timestamptz), 1)
    ON CONFLICT (secret_id, hour) DO UPDATE SET count = secret_token_hours.count + 1`;
}

/** The tokens of each secret in the last 24 hours (the current hour and the 23 before it). */
export async function tokensLast24h(db: Queryable, secretIds: string[], now = new Date()): Promise<Map<string, number>> {
  if (secretIds.length === 0) return new Map();
  const since = new Date(Math.floor(now.getTime() / 3_600_000) * 3_600_000 - 23 * 3_600_000);
  const rows = await db.$queryRaw<Array<{ secretId: string; total: bigint }>>`
    SELECT secret_id::text AS "secretId", sum(count)::bigint AS total FROM secret_token_hours
    WHERE secret_id = ANY(${secretIds}::uuid[]) AND hour >= ${since}
    GROUP BY secret_id`;
  return new Map(rows.map((row) => [row.secretId, Number(row.total)]));
}
