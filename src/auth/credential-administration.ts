/**
 * Administration of credentials: list and find them within the caller's reach, issue a second
 * secret (rotation), revoke a secret or a whole credential. Revoking deletes the tokens issued with
 * it; every process also evicts them from its token cache at once (the revocation triggers'
 * NOTIFY). Every action is written to the audit log in the same transaction.
 */
import type { Credential, Prisma } from '../generated/prisma/client';
import type { Queryable, Transaction } from '../database/prisma-client';
import { Conflict, NotFound } from '../errors';
import { recordAudit, type AuditActor } from './audit-log';
import { MAX_ACTIVE_SECRETS } from './credentials';
import { type Environment, hashSecret, newClientSecret } from './opaque-secrets';
import { tokensLast24h, type SecretUse } from './secret-use';
import type { CredentialKind } from './scopes';

/** What the caller may reach: a director only the partner credentials of their agency; staff all. */
export interface CredentialReach {
  companyId?: string;
  kinds?: CredentialKind[];
}

export const directorReach = (companyId: string): CredentialReach => ({ companyId, kinds: ['partner'] });
export const STAFF_REACH: CredentialReach = {};

/** A credential as administrators see it: never a secret nor a hash, only the secrets' ids and dates. */
export type CredentialView = Credential & { secrets: SecretView[] };
type SecretView = { id: string; createdAt: Date; revokedAt: Date | null } & SecretUse;

/**
 * Secrets a credential view shows: every active one (at most MAX_ACTIVE_SECRETS) and the latest
 * revoked. A director may issue and revoke in a loop; 60,000 revoked secrets once made one
 * credential view 7.4 MB (issue 23). Revoked ones are also deleted after REVOKED_SECRET_RETENTION_DAYS.
 */
export const SHOWN_SECRETS = 10;
/** How long a revoked secret's id and dates are kept (documented in openapi/back-office.yaml). */
export const REVOKED_SECRET_RETENTION_DAYS = 30;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface CredentialFilter {
  companyId?: string;
  kind?: CredentialKind;
}

/** Newest first (createdAt, then id), revoked ones included, within the caller's reach. */
export async function listCredentials(
  db: Queryable,
  reach: CredentialReach,
  filter: CredentialFilter,
  page: { offset: number; size: number },
): Promise<{ rows: CredentialView[]; total: number }> {
  // Outside the caller's reach a filter matches nothing rather than failing.
  if (reach.companyId !== undefined && filter.companyId !== undefined && filter.companyId !== reach.companyId) return { rows: [], total: 0 };
  if (reach.kinds && filter.kind !== undefined && !reach.kinds.includes(filter.kind)) return { rows: [], total: 0 };
  const where: Prisma.CredentialWhereInput = {};
  const companyId = reach.companyId ?? filter.companyId;
  if (companyId !== undefined) where.companyId = companyId;
  if (filter.kind !== undefined) where.kind = filter.kind;
  else if (reach.kinds) where.kind = { in: reach.kinds };
  const total = await db.credential.count({ where });
  if (page.offset >= total) return { rows: [], total };
  const rows = await db.credential.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: page.offset, take: page.size });
  return { rows: await withShownSecrets(db, rows), total };
}

/** Each credential with its shown secrets (active first, then the latest revoked; listed oldest first), in one statement. */
async function withShownSecrets(db: Queryable, credentials: Credential[]): Promise<CredentialView[]> {
  if (credentials.length === 0) return [];
  const rows = await db.$queryRaw<Array<Omit<SecretView, 'tokensLast24h'> & { credentialId: string }>>`
    SELECT c.id::text AS "credentialId", s.id::text AS id, s.created_at AS "createdAt", s.revoked_at AS "revokedAt",
           s.last_token_at AS "lastTokenAt", s.last_token_address AS "lastTokenAddress"
    FROM unnest(${credentials.map((credential) => credential.id)}::uuid[]) AS c(id)
    CROSS JOIN LATERAL (
      SELECT id, created_at, revoked_at, last_token_at, last_token_address FROM credential_secrets WHERE credential_id = c.id
      ORDER BY revoked_at DESC NULLS FIRST, created_at DESC LIMIT ${SHOWN_SECRETS}
    ) s
    ORDER BY s.created_at, s.id`;
  const counts = await tokensLast24h(
    db,
    rows.map((row) => row.id),
  );
  return credentials.map((credential) => ({
    ...credential,
    secrets: rows
      .filter((row) => row.credentialId === credential.id)
      .map(({ credentialId: _credential, ...secret }) => ({ ...secret, tokensLast24h: counts.get(secret.id) ?? 0 })),
  }));
}

/** The credential within the caller's reach, or 404 (another agency's credential does not exist for a director). */
export async function findCredential(db: Queryable, reach: CredentialReach, credentialId: string): Promise<CredentialView> {
  const found = UUID.test(credentialId) ? await db.credential.findUnique({ where: { id: credentialId } }) : null;
  if (!found || !within(reach, found)) throw new NotFound('Credential not found.');
  return (await withShownSecrets(db, [found]))[0]!;
}

function within(reach: CredentialReach, credential: Pick<Credential, 'companyId' | 'kind'>): boolean {
  return (reach.companyId === undefined || credential.companyId === reach.companyId) && (!reach.kinds || reach.kinds.includes(credential.kind));
}

/** Locks the credential's row until the transaction ends, so concurrent rotations apply one after another. */
async function lockCredential(tx: Transaction, reach: CredentialReach, credentialId: string): Promise<CredentialView> {
  if (UUID.test(credentialId)) await tx.$queryRaw`SELECT id FROM credentials WHERE id = ${credentialId}::uuid FOR UPDATE`;
  return findCredential(tx, reach, credentialId);
}

export interface IssuedSecret {
  secretId: string;
  credentialId: string;
  /** Shown once; only its hash is stored. */
  clientSecret: string;
  createdAt: Date;
}

/** Rotation, step 1: a second active secret. Both work until one is revoked. */
export async function issueSecret(
  tx: Transaction,
  environment: Environment,
  reach: CredentialReach,
  credentialId: string,
  actor: AuditActor,
): Promise<IssuedSecret> {
  const credential = await lockCredential(tx, reach, credentialId);
  if (credential.revokedAt) throw new Conflict('credential_revoked', 'This credential is revoked; create a new credential instead.');
  const active = credential.secrets.filter((secret) => !secret.revokedAt).length;
  if (active >= MAX_ACTIVE_SECRETS) {
    throw new Conflict(
      'secret_limit_reached',
      `This credential already holds ${MAX_ACTIVE_SECRETS} active secrets; revoke one before issuing another.`,
    );
  }
  const clientSecret = newClientSecret(environment);
  const secret = await tx.credentialSecret.create({ data: { credentialId, secretHash: await hashSecret(clientSecret) } });
  await recordAudit(tx, {
    actor,
    action: 'credential.secret_issued',
    companyId: credential.companyId,
    credentialId,
    details: { clientId: credential.clientId, secretId: secret.id },
  });
  return { secretId: secret.id, credentialId, clientSecret, createdAt: secret.createdAt };
}

/** Rotation, last step (or a leak): the secret and every token obtained with it stop working at once. */
export async function revokeSecret(
  tx: Transaction,
  reach: CredentialReach,
  credentialId: string,
  secretId: string,
  actor: AuditActor,
): Promise<CredentialView> {
  const credential = await lockCredential(tx, reach, credentialId);
  // Looked up on its own: a revoked secret may be older than the ones the view shows.
  const secret = UUID.test(secretId) ? await tx.credentialSecret.findFirst({ where: { id: secretId, credentialId: credential.id } }) : null;
  if (!secret) throw new NotFound('Secret not found.');
  if (secret.revokedAt) throw new Conflict('already_revoked', 'This secret is already revoked.');
  await tx.credentialSecret.update({ where: { id: secretId }, data: { revokedAt: new Date() } });
  const tokens = await tx.accessToken.deleteMany({ where: { secretId } });
  await recordAudit(tx, {
    actor,
    action: 'credential.secret_revoked',
    companyId: credential.companyId,
    credentialId,
    details: { clientId: credential.clientId, secretId, tokensRevoked: tokens.count },
  });
  return findCredential(tx, reach, credentialId);
}

/** The credential, all its secrets and every token obtained with it stop working at once. */
export async function revokeCredential(tx: Transaction, reach: CredentialReach, credentialId: string, actor: AuditActor): Promise<CredentialView> {
  const credential = await lockCredential(tx, reach, credentialId);
  if (credential.revokedAt) throw new Conflict('already_revoked', 'This credential is already revoked.');
  const now = new Date();
  await tx.credential.update({ where: { id: credentialId }, data: { revokedAt: now } });
  await tx.credentialSecret.updateMany({ where: { credentialId, revokedAt: null }, data: { revokedAt: now } });
  const tokens = await tx.accessToken.deleteMany({ where: { credentialId } });
  await recordAudit(tx, {
    actor,
    action: 'credential.revoked',
    companyId: credential.companyId,
    credentialId,
    details: { clientId: credential.clientId, tokensRevoked: tokens.count },
  });
  return findCredential(tx, reach, credentialId);
}
