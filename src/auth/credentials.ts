/**
 * Credentials (OAuth clients): creation with a secret shown once, secret rotation and revocation.
 * Revoking deletes the tokens issued with it, so they fail at once (the Bearer guard also checks
 * `revokedAt` of the credential and of the secret on every request).
 *
 * Back office (issue #5): besides an agency's partner credentials there are credentials of the
 * service's staff (kind `staff`, company `back-office`) and of agency directors (kind `director`).
 * Each kind may hold only its own scopes (src/auth/scopes.ts). Every action is written to the audit
 * log in the same transaction. Knows nothing of HTTP; the operations API and the admin tool call it.
 */
import type { Credential, Prisma } from '../generated/prisma/client';
import type { Database, Queryable, Transaction } from '../database/prisma-client';
import { Conflict, NotFound, ValidationFailed } from '../errors';
import { recordAudit, type AuditActor } from './audit-log';
import { type Environment, hashSecret, newClientId, newClientSecret } from './opaque-secrets';
import { DIRECTOR_SCOPES, isScopeFor, SCOPES_BY_KIND, type CredentialKind } from './scopes';

/** The reserved internal company of staff credentials; no agency may use this id. */
export const BACK_OFFICE_COMPANY_ID = 'back-office';
/** A credential may hold this many active secrets at once (rotation: new one, deploy, revoke old). */
export const MAX_ACTIVE_SECRETS = 2;

export interface NewCredential {
  companyId: string;
  companyName?: string;
  displayName: string;
  scopes: string[];
  /** Audit actor label (`director:<name>`, `staff:<name>`, `quick-start`, ...). */
  createdBy: string;
  /** Back office: `partner` (default), `staff` or `director`. */
  kind?: CredentialKind;
  /** Back office: the staff member's or director's name; required for those kinds. */
  personName?: string | null;
  /** Back office: how the creation arrived and the requesting credential, for the audit log. */
  via?: AuditActor['via'];
  actorClientId?: string;
}

export interface CreatedCredential {
  credentialId: string;
  clientId: string;
  /** Shown once; only its hash is stored. */
  clientSecret: string;
  secretId: string;
  companyId: string;
  displayName: string;
  scopes: string[];
  kind: CredentialKind;
  personName: string | null;
  createdAt: Date;
}

/** A request the credential rules refuse; a 400 `validation_failed` over HTTP, a usage error in the CLI. */
export class CredentialInputError extends ValidationFailed {
  constructor(detail: string) {
    super([detail], `The credential request is invalid: ${detail}`);
  }
}

export async function createCredential(db: Database, environment: Environment, input: NewCredential): Promise<CreatedCredential> {
  return db.$transaction((tx) => createCredentialIn(tx, environment, input));
}

/** createCredential inside the caller's transaction (the operations API's idempotent writes). */
export async function createCredentialIn(tx: Transaction, environment: Environment, input: NewCredential): Promise<CreatedCredential> {
  const kind = input.kind ?? 'partner';
  const scopes = [...new Set(input.scopes)];
  const personName = input.personName?.trim() || null;
  const displayName = input.displayName.trim();
  const companyId = kind === 'staff' ? BACK_OFFICE_COMPANY_ID : input.companyId.trim();
  const wrongKind = scopes.filter((scope) => !isScopeFor(kind, scope));
  if (wrongKind.length > 0) {
    throw new CredentialInputError(`scopes: ${wrongKind.join(', ')} cannot be granted to a ${kind} credential (allowed: ${SCOPES_BY_KIND[kind].join(', ')})`);
  }
  if (scopes.length === 0) throw new CredentialInputError('scopes: a credential needs at least one scope');
  if (!companyId) throw new CredentialInputError('companyId: a credential needs a company id');
  if (kind !== 'staff' && companyId === BACK_OFFICE_COMPANY_ID) {
    throw new CredentialInputError(`companyId: ${BACK_OFFICE_COMPANY_ID} is reserved for the service's staff`);
  }
  if (!displayName) throw new CredentialInputError('displayName: a credential needs a display name');
  if (displayName.length > 200) throw new CredentialInputError('displayName: at most 200 characters');
  if (kind !== 'partner' && !personName) throw new CredentialInputError(`personName: a ${kind} credential needs the person's name`);
  if (personName && personName.length > 200) throw new CredentialInputError('personName: at most 200 characters');

  const clientSecret = newClientSecret(environment);
  const secretHash = await hashSecret(clientSecret);
  await tx.company.upsert({
    where: { id: companyId },
    create: { id: companyId, name: kind === 'staff' ? 'Back office (service staff)' : (input.companyName ?? companyId) },
    update: {},
  });
  const credential = await tx.credential.create({
    data: {
      clientId: newClientId(environment),
      companyId,
      displayName,
      scopes,
      createdBy: input.createdBy,
      kind,
      personName: kind === 'partner' ? null : personName,
      secrets: { create: { secretHash } },
    },
    include: { secrets: true },
  });
  await recordAudit(tx, {
    actor: { label: input.createdBy, via: input.via ?? 'service', clientId: input.actorClientId },
    action: 'credential.created',
    companyId,
    credentialId: credential.id,
    details: { clientId: credential.clientId, kind, scopes, displayName, secretId: credential.secrets[0]!.id },
  });
  return {
    credentialId: credential.id,
    clientId: credential.clientId,
    clientSecret,
    secretId: credential.secrets[0]!.id,
    companyId: credential.companyId,
    displayName: credential.displayName,
    scopes,
    kind,
    personName: credential.personName,
    createdAt: credential.createdAt,
  };
}

/** Bootstrap (admin tool): a staff member's credential with the given operations scopes. */
export function createStaffCredential(
  db: Database,
  environment: Environment,
  input: { personName: string; scopes: string[]; createdBy: string; via?: AuditActor['via'] },
): Promise<CreatedCredential> {
  return createCredential(db, environment, {
    companyId: BACK_OFFICE_COMPANY_ID,
    displayName: `${input.personName.trim()} (staff)`,
    scopes: input.scopes,
    createdBy: input.createdBy,
    kind: 'staff',
    personName: input.personName,
    via: input.via,
  });
}

/** Bootstrap (admin tool): an agency director's credential, which manages the agency's credentials. */
export function createDirectorCredential(
  db: Database,
  environment: Environment,
  input: { companyId: string; companyName?: string; personName: string; createdBy: string; via?: AuditActor['via'] },
): Promise<CreatedCredential> {
  return createCredential(db, environment, {
    companyId: input.companyId,
    companyName: input.companyName,
    displayName: `${input.personName.trim()} (director)`,
    scopes: [...DIRECTOR_SCOPES],
    createdBy: input.createdBy,
    kind: 'director',
    personName: input.personName,
    via: input.via,
  });
}

// ---- Administration: list, rotate, revoke --------------------------------------------------------

/** What the caller may reach: a director only the partner credentials of their agency; staff all. */
export interface CredentialReach {
  companyId?: string;
  kinds?: CredentialKind[];
}

export const directorReach = (companyId: string): CredentialReach => ({ companyId, kinds: ['partner'] });
export const STAFF_REACH: CredentialReach = {};

/** A credential as administrators see it: never a secret nor a hash, only the secrets' ids and dates. */
export type CredentialView = Credential & { secrets: Array<{ id: string; createdAt: Date; revokedAt: Date | null }> };

const VIEW = { secrets: { select: { id: true, createdAt: true, revokedAt: true }, orderBy: [{ createdAt: 'asc' as const }, { id: 'asc' as const }] } };

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
  const rows = await db.credential.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: page.offset, take: page.size, include: VIEW });
  return { rows, total };
}

/** The credential within the caller's reach, or 404 (another agency's credential does not exist for a director). */
export async function findCredential(db: Queryable, reach: CredentialReach, credentialId: string): Promise<CredentialView> {
  const found = UUID.test(credentialId) ? await db.credential.findUnique({ where: { id: credentialId }, include: VIEW }) : null;
  if (!found || !within(reach, found)) throw new NotFound('Credential not found.');
  return found;
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
export async function issueSecret(tx: Transaction, environment: Environment, reach: CredentialReach, credentialId: string, actor: AuditActor): Promise<IssuedSecret> {
  const credential = await lockCredential(tx, reach, credentialId);
  if (credential.revokedAt) throw new Conflict('credential_revoked', 'This credential is revoked; create a new credential instead.');
  const active = credential.secrets.filter((secret) => !secret.revokedAt).length;
  if (active >= MAX_ACTIVE_SECRETS) {
    throw new Conflict('secret_limit_reached', `This credential already holds ${MAX_ACTIVE_SECRETS} active secrets; revoke one before issuing another.`);
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
export async function revokeSecret(tx: Transaction, reach: CredentialReach, credentialId: string, secretId: string, actor: AuditActor): Promise<CredentialView> {
  const credential = await lockCredential(tx, reach, credentialId);
  const secret = credential.secrets.find((candidate) => candidate.id === secretId);
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
