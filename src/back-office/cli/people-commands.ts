/**
 * The console's people in the admin tool (issue 37): invite a director or a staff member (prints a
 * one-time enrolment link, valid CONSOLE_INVITATION_HOURS), re-invite a person who lost their
 * passkeys (their passkeys and sessions stop working at once), list people.
 */
import { staffActor } from '../../auth/audit-log';
import { CredentialInputError } from '../../auth/credentials';
import { STAFF_SCOPES } from '../../auth/scopes';
import type { Config } from '../../config';
import { enrolmentLink, invitePerson, listPeople, reinvitePerson, type Invitation } from '../../people/people';
import { optionalText, requiredOption, UsageError, type CliCommand, type CommandContext } from './cli-command';

const byOption = { by: { description: 'who runs this command (audit log, as staff:<name>); default admin-cli' } };
const originOption = { origin: { description: 'the console origin for the link (default PUBLIC_ORIGIN, else http://localhost:PORT)' } };

/** The origin of the link: a passkey is bound to a host name, never to an IP address (localhost for a local service). */
export function consoleOrigin(config: Config, given?: string): string {
  return (given ?? config.PUBLIC_ORIGIN ?? `http://localhost:${config.PORT}`).replace('://127.0.0.1', '://localhost').replace(/\/$/, '');
}

function invitationResult(ctx: CommandContext, invitation: Invitation, what: string) {
  const link = enrolmentLink(consoleOrigin(ctx.config, optionalText(ctx, 'origin')), ctx.config.CONSOLE_BASE_PATH, invitation.token);
  const { person } = invitation;
  return {
    json: {
      person: { id: person.id, kind: person.kind, companyId: person.companyId, name: person.name, scopes: person.scopes },
      link,
      expiresAt: invitation.expiresAt.toISOString(),
    },
    text: [
      `${what}: ${person.name} (${person.kind}, ${person.companyId}), person id ${person.id}.`,
      `Enrolment link (single use, until ${invitation.expiresAt.toISOString()}):`,
      `  ${link}`,
      '',
      'Hand it to the person only; whoever opens it first registers their passkey.',
    ],
  };
}

async function asUsage<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof CredentialInputError) throw new UsageError(error.details?.join('; ') ?? error.message);
    throw error;
  }
}

export const inviteDirectorCommand: CliCommand = {
  name: 'director invite',
  summary: "Invite an agency's director to the console; prints a one-time enrolment link (passkey)",
  options: {
    company: { description: 'agency (company) id; created if new', required: true },
    'company-name': { description: 'company display name when it is new' },
    name: { description: "the director's name", required: true },
    ...byOption,
    ...originOption,
  },
  async run(ctx) {
    const invitation = await asUsage(() =>
      invitePerson(
        ctx.db,
        ctx.config.ENVIRONMENT,
        {
          kind: 'director',
          companyId: requiredOption(ctx, 'company'),
          companyName: optionalText(ctx, 'company-name'),
          name: requiredOption(ctx, 'name'),
          actor: staffActor(optionalText(ctx, 'by') ?? 'admin-cli', 'cli'),
        },
        ctx.config.CONSOLE_INVITATION_HOURS,
      ),
    );
    return invitationResult(ctx, invitation, 'Director invited');
  },
};

export const inviteStaffCommand: CliCommand = {
  name: 'staff invite',
  summary: 'Invite a member of the staff to the console (reviewers, credential administration); prints a one-time enrolment link',
  options: {
    name: { description: "the staff member's name (signs their history entries)", required: true },
    scopes: { description: `comma- or space-separated: ${STAFF_SCOPES.join(', ')}`, required: true },
    ...byOption,
    ...originOption,
  },
  async run(ctx) {
    const scopes = requiredOption(ctx, 'scopes')
      .split(/[\s,]+/)
      .filter(Boolean);
    const invitation = await asUsage(() =>
      invitePerson(
        ctx.db,
        ctx.config.ENVIRONMENT,
        { kind: 'staff', name: requiredOption(ctx, 'name'), scopes, actor: staffActor(optionalText(ctx, 'by') ?? 'admin-cli', 'cli') },
        ctx.config.CONSOLE_INVITATION_HOURS,
      ),
    );
    return invitationResult(ctx, invitation, 'Staff member invited');
  },
};

export const reinviteCommand: CliCommand = {
  name: 'people reinvite',
  summary: 'A new enrolment link for a person who lost their passkeys: their passkeys and sessions stop working at once',
  options: { id: { description: 'person id (see people list)', required: true }, ...byOption, ...originOption },
  async run(ctx) {
    const invitation = await reinvitePerson(
      ctx.db,
      ctx.config.ENVIRONMENT,
      requiredOption(ctx, 'id'),
      staffActor(optionalText(ctx, 'by') ?? 'admin-cli', 'cli'),
      ctx.config.CONSOLE_INVITATION_HOURS,
    );
    return invitationResult(ctx, invitation, 'Re-invited (old passkeys and sessions ended)');
  },
};

export const listPeopleCommand: CliCommand = {
  name: 'people list',
  summary: "The console's people (directors and staff), newest first, with their passkeys and open sessions",
  options: { company: { description: 'only this company (agency, or back-office for staff)' } },
  async run(ctx) {
    const people = await listPeople(ctx.db, optionalText(ctx, 'company'));
    const items = people.map((person) => ({
      id: person.id,
      kind: person.kind,
      companyId: person.companyId,
      name: person.name,
      scopes: person.scopes,
      passkeys: person._count.passkeys,
      sessions: person._count.sessions,
      createdAt: person.createdAt.toISOString(),
    }));
    return {
      json: { items },
      text: [
        `${items.length} person(s):`,
        ...items.map(
          (p) =>
            `${p.id}  ${p.kind.padEnd(8)} ${p.companyId.padEnd(20)} ${p.name}  [${p.scopes.join(' ')}]  passkeys: ${p.passkeys}  sessions: ${p.sessions}`,
        ),
      ],
    };
  },
};

export const peopleCommands: CliCommand[] = [inviteDirectorCommand, inviteStaffCommand, reinviteCommand, listPeopleCommand];
