/**
 * The stack floors' Bearer check (floor-server.ts, document-floor-server.ts): the service's own
 * rule in one SQL fragment (an unexpired token of an unrevoked credential and secret, by its
 * hash), to be completed with the token hash as its last parameter; it yields the token's company.
 */
export const TOKEN_CHECK = `SELECT t.company_id FROM access_tokens t
  JOIN credentials c ON c.id = t.credential_id JOIN credential_secrets s ON s.id = t.secret_id
  WHERE t.expires_at > now() AND c.revoked_at IS NULL AND s.revoked_at IS NULL AND t.token_hash =`;
