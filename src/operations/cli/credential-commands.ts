/**
 * Credential commands of the admin tool: an agency director creates a credential and sees its secret
 * once; back office (issue #5): bootstrap of staff and director credentials, listing, rotation,
 * revocation and the audit log, through the same service functions as the operations API.
 */
import { directorActor, listAuditLog, staffActor, type AuditActor } from '../../auth/audit-log';
import {
  createCredential,
  createDirectorCredential,
  createStaffCredential,
  CredentialInputError,
  directorReach,
  issueSecret,
  listCredentials,
  revokeCredential,
  revokeSecret,
  STAFF_REACH,
  type CreatedCredential,
  type CredentialReach,
} from '../../auth/credentials';
import { SCOPES, STAFF_SCOPES, type CredentialKind } from '../../auth/scopes';
import { pageRequest, type PageRequest } from '../../http/paging';
import { toAuditLogEntry, toCredential } from '../api/mappers';
import { requiredOption, UsageError, type CliCommand, type CommandContext, type CommandResult } from './cli-command';

export const createCredentialCommand: CliCommand = {
  name: 'credentials create',
  summary: "Create a partner credential for an agency; prints the client secret once",
  options: {
    company: { description: 'company (agency) id; created if new', required: true },
    'company-name': { description: 'company display name when it is new' },
    name: { description: 'display name of the credential (appears as creator in history)', required: true },
    scopes: { description: `comma- or space-separated scopes: ${SCOPES.join(', ')}`, required: true },
    director: { description: 'name of the agency director creating it (audit log)', required: true },
  },
  async run(ctx) {
    const scopes = requiredOption(ctx, 'scopes').split(/[\s,]+/).filter(Boolean);
    try {
      const credential = await createCredential(ctx.db, ctx.config.ENVIRONMENT, {
        companyId: requiredOption(ctx, 'company'),
        companyName: typeof ctx.options['company-name'] === 'string' ? ctx.options['company-name'] : undefined,
        displayName: requiredOption(ctx, 'name'),
        scopes,
        createdBy: `director:${requiredOption(ctx, 'director')}`,
        via: 'cli',
      });
      return {
        json: credential,
        text: [
          `Credential created for company ${credential.companyId}.`,
          `client_id:     ${credential.clientId}`,
          `client_secret: ${credential.clientSecret}`,
          `scopes:        ${credential.scopes.join(' ')}`,
          '',
          'The client secret is shown only now; store it in a secret manager.',
        ],
      };
    } catch (error) {
      if (error instanceof CredentialInputError) throw new UsageError(error.message);
      throw error;
    }
  },
};

// ---- Back office (issue #5): bootstrap of staff and directors, credential administration, audit log.

const optionalText = (ctx: CommandContext, name: string): string | undefined => {
  const value = ctx.options[name];
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
};

const scopesOption = (ctx: CommandContext): string[] => requiredOption(ctx, 'scopes').split(/[\s,]+/).filter(Boolean);

/** A created credential: its secret printed once. */
function createdResult(credential: CreatedCredential, what: string): CommandResult {
  return {
    json: credential,
    text: [
      `${what} created: ${credential.displayName} (${credential.companyId}).`,
      `credential id: ${credential.credentialId}`,
      `client_id:     ${credential.clientId}`,
      `client_secret: ${credential.clientSecret}`,
      `scopes:        ${credential.scopes.join(' ')}`,
      '',
      'The client secret is shown only now; hand it over through a secret manager.',
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

export const createStaffCommand: CliCommand = {
  name: 'staff create',
  summary: 'Create a staff member\'s credential for the operations API; prints the client secret once',
  options: {
    name: { description: "the staff member's name (history creator, audit actor)", required: true },
    scopes: { description: `comma- or space-separated: ${STAFF_SCOPES.join(', ')}`, required: true },
    by: { description: 'who runs this command (audit log); default admin-cli' },
  },
  async run(ctx) {
    const credential = await asUsage(() =>
      createStaffCredential(ctx.db, ctx.config.ENVIRONMENT, {
        personName: requiredOption(ctx, 'name'),
        scopes: scopesOption(ctx),
        createdBy: optionalText(ctx, 'by') ?? 'admin-cli',
        via: 'cli',
      }),
    );
    return createdResult(credential, 'Staff credential');
  },
};

export const createDirectorCommand: CliCommand = {
  name: 'director create',
  summary: "Create an agency director's credential (scope ops:credentials:manage); prints the client secret once",
  options: {
    company: { description: 'agency (company) id; created if new', required: true },
    'company-name': { description: 'company display name when it is new' },
    name: { description: "the director's name (audit actor)", required: true },
    by: { description: 'who runs this command (audit log); default admin-cli' },
  },
  async run(ctx) {
    const credential = await asUsage(() =>
      createDirectorCredential(ctx.db, ctx.config.ENVIRONMENT, {
        companyId: requiredOption(ctx, 'company'),
        companyName: optionalText(ctx, 'company-name'),
        personName: requiredOption(ctx, 'name'),
        createdBy: optionalText(ctx, 'by') ?? 'admin-cli',
        via: 'cli',
      }),
    );
    return createdResult(credential, 'Director credential');
  },
};

const pageOptions = {
  page: { description: 'zero-based page (default 0)' },
  'page-size': { description: 'page size, 1..200 (default 20)' },
};

const pageOf = (ctx: CommandContext) => pageRequest({ page: optionalText(ctx, 'page'), pageSize: optionalText(ctx, 'page-size') });

const pageJson = <T>(items: T[], total: number, page: PageRequest) => ({
  items,
  page: { size: page.size, totalElements: total, totalPages: Math.ceil(total / page.size), number: page.number },
});

export const listCredentialsCommand: CliCommand = {
  name: 'credentials list',
  summary: 'List credentials of any agency (never their secrets)',
  options: {
    company: { description: 'only this company' },
    kind: { description: 'only this kind: partner, staff or director' },
    ...pageOptions,
  },
  async run(ctx) {
    const kind = optionalText(ctx, 'kind');
    if (kind !== undefined && !['partner', 'staff', 'director'].includes(kind)) throw new UsageError('--kind must be partner, staff or director');
    const page = pageOf(ctx);
    const { rows, total } = await listCredentials(ctx.db, STAFF_REACH, { companyId: optionalText(ctx, 'company'), kind: kind as CredentialKind | undefined }, page);
    const items = rows.map(toCredential);
    return {
      json: pageJson(items, total, page),
      text: [
        `${total} credential(s); page ${page.number}:`,
        ...items.map(
          (item) =>
            `${item.id}  ${item.kind.padEnd(8)} ${item.companyId.padEnd(20)} ${item.clientId}  ${item.displayName}  [${item.scopes.join(' ')}]` +
            `${item.revokedAt ? `  REVOKED ${item.revokedAt}` : ''}  secrets: ${item.secrets.map((secret) => `${secret.id}${secret.revokedAt ? ' (revoked)' : ''}`).join(', ')}`,
        ),
      ],
    };
  },
};

/** `--staff <name>` or `--director <name>`: who acts, for the audit log. */
function actorOption(ctx: CommandContext): AuditActor {
  const staff = optionalText(ctx, 'staff');
  const director = optionalText(ctx, 'director');
  if ((staff === undefined) === (director === undefined)) throw new UsageError('give exactly one of --staff <name> or --director <name>');
  return staff !== undefined ? staffActor(staff, 'cli') : directorActor(director!, 'cli');
}

/** A director reaches the partner credentials of one agency (`--company`); staff reach every credential. */
function reachOption(ctx: CommandContext, actor: AuditActor): CredentialReach {
  if (actor.label.startsWith('staff:')) return STAFF_REACH;
  return directorReach(requiredOption(ctx, 'company'));
}

export const rotateCredentialCommand: CliCommand = {
  name: 'credentials rotate',
  summary: "Issue a second secret for an agency's partner credential (director's action); prints it once",
  options: {
    id: { description: 'credential id (UUID, see credentials list)', required: true },
    company: { description: 'the agency the credential belongs to', required: true },
    director: { description: "the director's name (audit log)", required: true },
  },
  async run(ctx) {
    const actor = directorActor(requiredOption(ctx, 'director'), 'cli');
    const reach = directorReach(requiredOption(ctx, 'company'));
    const issued = await ctx.db.$transaction((tx) => issueSecret(tx, ctx.config.ENVIRONMENT, reach, requiredOption(ctx, 'id'), actor));
    return {
      json: issued,
      text: [
        `New secret ${issued.secretId} issued for credential ${issued.credentialId}; both secrets work until one is revoked.`,
        `client_secret: ${issued.clientSecret}`,
        '',
        'Deploy it, confirm tokens are issued with it, then: credentials revoke-secret --id <credential> --secret <old secret id>.',
      ],
    };
  },
};

export const revokeSecretCommand: CliCommand = {
  name: 'credentials revoke-secret',
  summary: 'Revoke one secret of a credential; its tokens stop working at once',
  options: {
    id: { description: 'credential id (UUID)', required: true },
    secret: { description: 'secret id (UUID, see credentials list)', required: true },
    staff: { description: 'your name, when acting as staff (any agency)' },
    director: { description: "the director's name, when acting for an agency (needs --company)" },
    company: { description: 'the agency, with --director' },
  },
  async run(ctx) {
    const actor = actorOption(ctx);
    const reach = reachOption(ctx, actor);
    const view = await ctx.db.$transaction((tx) => revokeSecret(tx, reach, requiredOption(ctx, 'id'), requiredOption(ctx, 'secret'), actor));
    return { json: toCredential(view), text: [`Secret ${requiredOption(ctx, 'secret')} of credential ${view.id} revoked.`] };
  },
};

export const revokeCredentialCommand: CliCommand = {
  name: 'credentials revoke',
  summary: 'Revoke a credential, all its secrets and tokens, at once and for good',
  options: {
    id: { description: 'credential id (UUID)', required: true },
    staff: { description: 'your name, when acting as staff (any agency)' },
    director: { description: "the director's name, when acting for an agency (needs --company)" },
    company: { description: 'the agency, with --director' },
  },
  async run(ctx) {
    const actor = actorOption(ctx);
    const reach = reachOption(ctx, actor);
    const view = await ctx.db.$transaction((tx) => revokeCredential(tx, reach, requiredOption(ctx, 'id'), actor));
    return { json: toCredential(view), text: [`Credential ${view.id} (${view.clientId}) revoked.`] };
  },
};

export const listAuditLogCommand: CliCommand = {
  name: 'audit list',
  summary: 'Read the audit log, newest first',
  options: {
    company: { description: 'only this company' },
    credential: { description: 'only this credential id' },
    action: { description: 'only this action, e.g. credential.revoked' },
    ...pageOptions,
  },
  async run(ctx) {
    const page = pageOf(ctx);
    const { rows, total } = await listAuditLog(
      ctx.db,
      { companyId: optionalText(ctx, 'company'), credentialId: optionalText(ctx, 'credential'), action: optionalText(ctx, 'action') },
      page,
    );
    const items = rows.map(toAuditLogEntry);
    return {
      json: pageJson(items, total, page),
      text: [
        `${total} entr${total === 1 ? 'y' : 'ies'}; page ${page.number}:`,
        ...items.map((item) => `${item.createdAt}  ${item.action.padEnd(26)} ${item.actor.padEnd(24)} ${item.companyId ?? '-'}  ${item.credentialId ?? ''}  ${JSON.stringify(item.details)}`),
      ],
    };
  },
};

export const credentialCommands: CliCommand[] = [
  createCredentialCommand,
  listCredentialsCommand,
  rotateCredentialCommand,
  revokeSecretCommand,
  revokeCredentialCommand,
  createStaffCommand,
  createDirectorCommand,
  listAuditLogCommand,
];
