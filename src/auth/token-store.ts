/**
 * Access tokens as the Bearer check reads them: one statement finds the token with its credential
 * and secret, revocations included. Tokens are stored as the SHA-256 of their value.
 */
import type { Queryable } from '../database/prisma-client';
import { readRows } from '../database/direct-reads';
import { Prisma } from '../generated/prisma/client';
import type { StoredToken } from './principal';
import type { CredentialKind } from './scopes';

interface TokenRow {
  companyId: string;
  credentialId: string;
  clientId: string;
  displayName: string;
  scopes: string[];
  kind: CredentialKind;
  personName: string | null;
  expiresAt: Date;
  revoked: boolean;
}

export async function findStoredToken(db: Queryable, tokenHash: string): Promise<StoredToken | undefined> {
  const rows = await readRows<TokenRow>(
    db,
    Prisma.sql`
    SELECT t.company_id AS "companyId", c.id::text AS "credentialId", c.client_id AS "clientId",
           c.display_name AS "displayName", t.scopes, c.kind::text AS kind, c.person_name AS "personName",
           t.expires_at AS "expiresAt", (c.revoked_at IS NOT NULL OR s.revoked_at IS NOT NULL) AS revoked
    FROM access_tokens t
    JOIN credentials c ON c.id = t.credential_id
    JOIN credential_secrets s ON s.id = t.secret_id
    WHERE t.token_hash = ${tokenHash}`,
  );
  return rows[0];
}
