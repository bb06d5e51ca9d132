/**
 * Credentials (OAuth clients): their creation, with a secret shown once (administration: list,
 * rotation and revocation, is in credential-administration.ts).
 *
 * Back office (issue #5): besides an agency's partner credentials there are credentials of the
 * service's staff (kind `staff`, company `back-office`) and of agency directors (kind `director`).
 * Each kind may hold only its own scopes (src/auth/scopes.ts). Every action is written to the audit
 * log in the same transaction. Knows nothing of HTTP; the back-office API and the admin tool call it.
 */
import type { Database, Transaction } from '../database/prisma-client';
import { Conflict, ValidationFailed } from '../errors';
import { recordAudit, type AuditActor } from './audit-log';
import { reservedNameLike } from './reserved-names';
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
  /**
   * A partner credential: the active (not revoked) partner credentials the agency may hold
   * (CREDENTIALS_PER_AGENCY), 409 credential_limit_reached beyond. Absent: no cap (tests, bootstrap).
   */
  partnerCredentialsPerAgency?: number;
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

/** A request the credential rules refuse; a 400 (`validation_failed` unless said) over HTTP, a usage error in the CLI. */
export class CredentialInputError extends ValidationFailed {
  constructor(detail: string, code = 'validation_failed') {
    super([detail], `The credential request is invalid: ${detail}`, code);
  }
}

export async function createCredential(db: Database, environment: Environment, input: NewCredential): Promise<CreatedCredential> {
  return db.$transaction((tx) => createCredentialIn(tx, environment, input));
}

/** createCredential inside the caller's transaction (the back-office API's idempotent writes). */
/**
 * A company id as the contracts declare it (letters, digits, `.`, `_`, `-`, at most 100): it names
 * the agency in answers, in links and in the back office's `Company-Id` header, where nothing else fits.
 */
const COMPANY_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export async function createCredentialIn(tx: Transaction, environment: Environment, input: NewCredential): Promise<CreatedCredential> {
  const kind = input.kind ?? 'partner';
  const scopes = [...new Set(input.scopes)];
  const personName = input.personName?.trim() || null;
  const displayName = input.displayName.trim();
  const companyId = kind === 'staff' ? BACK_OFFICE_COMPANY_ID : input.companyId.trim();
  const wrongKind = scopes.filter((scope) => !isScopeFor(kind, scope));
  if (wrongKind.length > 0) {
    throw new CredentialInputError(
      `scopes: ${wrongKind.join(', ')} cannot be granted to a ${kind} credential (allowed: ${SCOPES_BY_KIND[kind].join(', ')})`,
    );
  }
  if (scopes.length === 0) throw new CredentialInputError('scopes: a credential needs at least one scope');
  if (!companyId) throw new CredentialInputError('companyId: a credential needs a company id');
  // The bounds the back-office contract declares for what it shows of a credential (and the database holds to).
  if (!COMPANY_ID.test(companyId)) {
    throw new CredentialInputError('companyId: 1 to 100 letters, digits, dots, underscores or hyphens, starting with a letter or a digit');
  }
  if (input.createdBy.length > 250) throw new CredentialInputError('createdBy: at most 250 characters');
  if (kind !== 'staff' && companyId === BACK_OFFICE_COMPANY_ID) {
    throw new CredentialInputError(`companyId: ${BACK_OFFICE_COMPANY_ID} is reserved for the service's staff`);
  }
  if (!displayName) throw new CredentialInputError('displayName: a credential needs a display name');
  if (displayName.length > 200) throw new CredentialInputError('displayName: at most 200 characters');
  if (kind !== 'partner' && !personName) throw new CredentialInputError(`personName: a ${kind} credential needs the person's name`);
  if (personName && personName.length > 200) throw new CredentialInputError('personName: at most 200 characters');
  // A credential's writes are signed with its display name (a person's, for staff): never one that
  // reads as the service's own or, for an agency's integration, as a staff member's.
  for (const [field, name] of [
    ['displayName', displayName],
    ['personName', personName],
  ] as const) {
    const reserved = name ? await reservedNameLike(tx, name, kind) : undefined;
    if (reserved) {
      throw new CredentialInputError(
        `${field}: ${JSON.stringify(name)} reads as ${JSON.stringify(reserved)}, a name the service or its staff sign history with; choose another`,
        'display_name_reserved',
      );
    }
  }

  const clientSecret = newClientSecret(environment);
  const secretHash = await hashSecret(clientSecret);
  await tx.company.upsert({
    where: { id: companyId },
    create: { id: companyId, name: kind === 'staff' ? 'Back office (service staff)' : (input.companyName ?? companyId) },
    update: {},
  });
  if (kind === 'partner' && input.partnerCredentialsPerAgency !== undefined) await assertBelowCap(tx, companyId, input.partnerCredentialsPerAgency);
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

/**
 * Issue 34 item 6: each credential has its own quota, so an agency minting credentials would
 * multiply its quota; the cap bounds it (with the agency's own quota, src/http/rate-limits.ts).
 * The company's row is locked so that two creations at once cannot both pass the count.
 */
async function assertBelowCap(tx: Transaction, companyId: string, cap: number): Promise<void> {
  await tx.$queryRaw`SELECT id FROM companies WHERE id = ${companyId} FOR UPDATE`;
  const active = await tx.credential.count({ where: { companyId, kind: 'partner', revokedAt: null } });
  if (active >= cap) {
    throw new Conflict(
      'credential_limit_reached',
      `The agency already holds ${cap} active partner credentials, the most it may; revoke one before creating another.`,
    );
  }
}
