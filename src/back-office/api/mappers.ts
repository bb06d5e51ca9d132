/** Back-office rows to the response shapes of openapi/back-office.yaml. */
import type { AuditLogRow } from '../../auth/audit-log';
import type { CredentialView } from '../../auth/credential-administration';
import { decimalToNumber, toDateOnly, toTimestamp } from '../../database/column-values';
import type { StatementEntryRow } from '../../financial/ledger-service';
import type { components } from '../../generated/back-office-api';

type Schemas = components['schemas'];

export function toCredential(row: CredentialView): Schemas['Credential'] {
  return {
    id: row.id,
    clientId: row.clientId,
    companyId: row.companyId,
    kind: row.kind,
    displayName: row.displayName,
    personName: row.personName,
    scopes: row.scopes as Schemas['Credential']['scopes'],
    createdBy: row.createdBy,
    createdAt: toTimestamp(row.createdAt)!,
    revokedAt: toTimestamp(row.revokedAt),
    secrets: row.secrets.map((secret) => ({
      id: secret.id,
      createdAt: toTimestamp(secret.createdAt)!,
      revokedAt: toTimestamp(secret.revokedAt),
      lastUse: { at: toTimestamp(secret.lastTokenAt), address: secret.lastTokenAddress, tokensLast24h: secret.tokensLast24h },
    })),
  };
}

/**
 * A credential with a secret just issued. `clientSecret` is null here: the response that is stored
 * for idempotent replays never holds a secret; the first response gets it added after commit.
 */
export function toCredentialWithSecret(row: CredentialView, secretId: string): Schemas['CredentialWithSecret'] {
  const secret = row.secrets.find((candidate) => candidate.id === secretId)!;
  return { credential: toCredential(row), secret: { id: secret.id, clientSecret: null, createdAt: toTimestamp(secret.createdAt)! } };
}

export function toAuditLogEntry(row: AuditLogRow): Schemas['AuditLogEntry'] {
  return {
    id: Number(row.id),
    actor: row.actor,
    action: row.action,
    companyId: row.companyId,
    credentialId: row.credentialId,
    details: (row.details ?? null) as Schemas['AuditLogEntry']['details'],
    createdAt: toTimestamp(row.createdAt)!,
  };
}

export function toPostedStatementEntry(row: StatementEntryRow): Schemas['PostedStatementEntry'] {
  return {
    id: Number(row.id),
    companyId: row.companyId,
    date: toDateOnly(row.date)!,
    description: row.description,
    amount: decimalToNumber(row.amount)!,
    type: row.type,
  };
}
