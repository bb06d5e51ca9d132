/**
 * The console's people (issue 37): an agency's director or a member of the service's staff, invited
 * by the admin tool with a one-time enrolment link (valid CONSOLE_INVITATION_HOURS, used once).
 * Re-inviting a person (a director who lost their passkey) removes their passkeys and ends their
 * sessions at once, in the invitation's transaction. Written to the audit log.
 */
import { randomBytes } from 'node:crypto';
import { recordAudit, type AuditActor } from '../auth/audit-log';
import { BACK_OFFICE_COMPANY_ID, CredentialInputError } from '../auth/credentials';
import { type Environment, hashAccessToken, newInvitationToken } from '../auth/opaque-secrets';
import { reservedNameLike } from '../auth/reserved-names';
import { DIRECTOR_SCOPES, isScopeFor } from '../auth/scopes';
import type { Database, Queryable } from '../database/prisma-client';
import { NotFound } from '../errors';
import type { ConsolePerson } from '../generated/prisma/client';

export interface NewPerson {
  kind: 'director' | 'staff';
  /** The agency (directors); staff belong to `back-office`. */
  companyId?: string;
  companyName?: string;
  name: string;
  /** Staff: the scopes chosen; directors get every director scope. */
  scopes?: string[];
  actor: AuditActor;
}

export interface Invitation {
  person: ConsolePerson;
  /** Shown once, in the enrolment link; only its hash is stored. */
  token: string;
  expiresAt: Date;
}

export const hashInvitation = hashAccessToken;

/** The enrolment link of an invitation: the token is in the fragment, so no server or proxy logs it. */
export const enrolmentLink = (origin: string, consoleBasePath: string, token: string) => `${origin}${consoleBasePath}/#/enrol/${token}`;

export async function invitePerson(db: Database, environment: Environment, input: NewPerson, invitationHours: number): Promise<Invitation> {
  const name = input.name.trim();
  if (!name || name.length > 200) throw new CredentialInputError('name: 1 to 200 characters');
  const companyId = input.kind === 'staff' ? BACK_OFFICE_COMPANY_ID : (input.companyId ?? '').trim();
  if (!companyId || companyId.length > 100) throw new CredentialInputError('company: a director needs the agency id (at most 100 characters)');
  if (input.kind === 'director' && companyId === BACK_OFFICE_COMPANY_ID)
    throw new CredentialInputError(`company: ${BACK_OFFICE_COMPANY_ID} is reserved for the service's staff`);
  const scopes = input.kind === 'director' ? [...DIRECTOR_SCOPES] : [...new Set(input.scopes ?? [])];
  const wrong = scopes.filter((scope) => !isScopeFor(input.kind, scope));
  if (wrong.length > 0 || scopes.length === 0)
    throw new CredentialInputError(`scopes: ${wrong.join(', ') || 'none given'} cannot be granted to ${input.kind}`);
  return db.$transaction(async (tx) => {
    const reserved = input.kind === 'director' ? await reservedNameLike(tx, name, 'director') : undefined;
    if (reserved) throw new CredentialInputError(`name: ${JSON.stringify(name)} reads as ${JSON.stringify(reserved)}`, 'display_name_reserved');
    await tx.company.upsert({
      where: { id: companyId },
      create: { id: companyId, name: input.kind === 'staff' ? 'Back office (service staff)' : (input.companyName ?? companyId) },
      update: {},
    });
    const person = await tx.consolePerson.create({
      data: { kind: input.kind, companyId, name, scopes, userHandle: randomBytes(32).toString('base64url'), createdBy: input.actor.label },
    });
    await recordAudit(tx, {
      actor: input.actor,
      action: 'console.person_invited',
      companyId,
      details: { personId: person.id, kind: person.kind, name, scopes },
    });
    return { person, ...(await newInvitation(tx, environment, person.id, input.actor, invitationHours)) };
  });
}

/** A new link for a person who lost their passkeys: the old passkeys, sessions and links stop working at once. */
export async function reinvitePerson(
  db: Database,
  environment: Environment,
  personId: string,
  actor: AuditActor,
  invitationHours: number,
): Promise<Invitation> {
  return db.$transaction((tx) => reinvitePersonIn(tx, environment, { personId }, actor, invitationHours));
}

/**
 * The re-invitation in the caller's transaction (the back office's request). `kind` narrows who may
 * be re-invited: another kind of person is not found, as an unknown id is.
 */
export async function reinvitePersonIn(
  tx: Queryable,
  environment: Environment,
  target: { personId: string; kind?: 'director' | 'staff' },
  actor: AuditActor,
  invitationHours: number,
): Promise<Invitation> {
  const { personId } = target;
  const person = /^[0-9a-f-]{36}$/i.test(personId) ? await tx.consolePerson.findUnique({ where: { id: personId } }) : null;
  if (!person || (target.kind && person.kind !== target.kind)) throw new NotFound('Person not found.');
  const passkeys = await tx.consolePasskey.deleteMany({ where: { personId } });
  const sessions = await tx.consoleSession.deleteMany({ where: { personId } });
  await tx.consoleInvitation.updateMany({ where: { personId, usedAt: null }, data: { expiresAt: new Date() } });
  await recordAudit(tx, {
    actor,
    action: 'console.person_reinvited',
    companyId: person.companyId,
    details: { personId, passkeysRemoved: passkeys.count, sessionsEnded: sessions.count },
  });
  return { person, ...(await newInvitation(tx, environment, personId, actor, invitationHours)) };
}

async function newInvitation(tx: Queryable, environment: Environment, personId: string, actor: AuditActor, hours: number) {
  const token = newInvitationToken(environment);
  const expiresAt = new Date(Date.now() + hours * 3_600_000);
  await tx.consoleInvitation.create({ data: { tokenHash: hashInvitation(token), personId, expiresAt, createdBy: actor.label } });
  return { token, expiresAt };
}

/** Everyone of the console, newest first (the admin tool's list). */
export function listPeople(db: Queryable, companyId?: string) {
  return db.consolePerson.findMany({
    where: companyId ? { companyId } : {},
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: 200,
    include: { _count: { select: { passkeys: true, sessions: true } } },
  });
}

/** One page of directors (of one agency when given), newest first, with their passkeys and sessions counted. */
export async function directorPage(db: Queryable, companyId: string | undefined, page: { offset: number; size: number }) {
  const where = { kind: 'director' as const, ...(companyId ? { companyId } : {}) };
  const total = await db.consolePerson.count({ where });
  const rows =
    page.offset < total
      ? await db.consolePerson.findMany({
          where,
          orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
          skip: page.offset,
          take: page.size,
          include: { _count: { select: { passkeys: true, sessions: true } } },
        })
      : [];
  return { rows, total };
}
