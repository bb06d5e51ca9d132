/**
 * Credential administration in the admin tool (back office): listing, rotation, revocation and the
 * audit log, through the same service functions as the back-office API.
 */
import { directorActor, listAuditLog, recordAudit, staffActor, type AuditActor } from '../../auth/audit-log';
import {
  directorReach,
  issueSecret,
  listCredentials,
  revokeCredential,
  revokeSecret,
  STAFF_REACH,
  type CredentialReach,
} from '../../auth/credential-administration';
import type { CredentialKind } from '../../auth/scopes';
import type { Transaction } from '../../database/prisma-client';
import { pageRequest, type PageRequest } from '../../http/paging';
import { toAuditLogEntry, toCredential } from '../api/mappers';
import { optionalText, readerOf, requiredOption, UsageError, type CliCommand, type CommandContext } from './cli-command';

const pageOptions = {
  page: { description: 'zero-based page (default 0)' },
  'page-size': { description: 'page size, 1..200 (default 20)' },
};

/** Who revokes: staff (any agency) or a director acting for one agency (audit log and reach). */
const actingOptions = {
  staff: { description: 'your name, when acting as staff (any agency)' },
  director: { description: "the director's name, when acting for an agency (needs --company)" },
  company: { description: 'the agency, with --director' },
};

const optionalNumber = (ctx: CommandContext, name: string): number | undefined => {
  const text = optionalText(ctx, name);
  return text === undefined || !Number.isFinite(Number(text)) ? undefined : Number(text);
};

const pageOf = (ctx: CommandContext) => pageRequest({ page: optionalNumber(ctx, 'page'), pageSize: optionalNumber(ctx, 'page-size') }, null);

const pageJson = <T>(items: T[], total: number, page: PageRequest) => ({
  items,
  page: { size: page.size, totalElements: total, totalPages: Math.ceil(total / page.size), number: page.number },
});

/** A secret with its last use (issue 37): when it last obtained a token, from where, tokens in 24 h. */
const secretLine = (secret: ReturnType<typeof toCredential>['secrets'][number]) =>
  `${secret.id}${secret.revokedAt ? ' (revoked)' : ''} last token ${secret.lastUse.at ? `${secret.lastUse.at} from ${secret.lastUse.address}` : 'never'}, ${secret.lastUse.tokensLast24h} in 24 h`;

export const listCredentialsCommand: CliCommand = {
  name: 'credentials list',
  summary: 'List credentials of any agency (never their secrets)',
  options: {
    company: { description: 'only this company' },
    kind: { description: 'only this kind: partner, staff or director' },
    staff: { description: 'your name, for the audit log (default: admin-cli)' },
    ...pageOptions,
  },
  async run(ctx) {
    const kind = optionalText(ctx, 'kind');
    if (kind !== undefined && !['partner', 'staff', 'director'].includes(kind)) throw new UsageError('--kind must be partner, staff or director');
    const page = pageOf(ctx);
    const { rows, total } = await listCredentials(
      ctx.db,
      STAFF_REACH,
      { companyId: optionalText(ctx, 'company'), kind: kind as CredentialKind | undefined },
      page,
    );
    const items = rows.map(toCredential);
    await recordAudit(ctx.db, {
      actor: readerOf(ctx),
      action: 'credentials.read',
      companyId: optionalText(ctx, 'company') ?? null,
      details: { kind: kind ?? null, page: page.number, credentials: items.length },
    });
    return {
      json: pageJson(items, total, page),
      text: [
        `${total} credential(s); page ${page.number}:`,
        ...items.map(
          (item) =>
            `${item.id}  ${item.kind.padEnd(8)} ${item.companyId.padEnd(20)} ${item.clientId}  ${item.displayName}  [${item.scopes.join(' ')}]` +
            `${item.revokedAt ? `  REVOKED ${item.revokedAt}` : ''}  secrets: ${item.secrets.map(secretLine).join(', ')}`,
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

/** One administrative change in a transaction, by the actor of `actingOptions` within its reach. */
function asActingParty<T>(ctx: CommandContext, change: (tx: Transaction, reach: CredentialReach, actor: AuditActor) => Promise<T>): Promise<T> {
  const actor = actorOption(ctx);
  const reach = reachOption(ctx, actor);
  return ctx.db.$transaction((tx) => change(tx, reach, actor));
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
    ...actingOptions,
  },
  async run(ctx) {
    const view = await asActingParty(ctx, (tx, reach, actor) =>
      revokeSecret(tx, reach, requiredOption(ctx, 'id'), requiredOption(ctx, 'secret'), actor),
    );
    return { json: toCredential(view), text: [`Secret ${requiredOption(ctx, 'secret')} of credential ${view.id} revoked.`] };
  },
};

export const revokeCredentialCommand: CliCommand = {
  name: 'credentials revoke',
  summary: 'Revoke a credential, all its secrets and tokens, at once and for good',
  options: {
    id: { description: 'credential id (UUID)', required: true },
    ...actingOptions,
  },
  async run(ctx) {
    const view = await asActingParty(ctx, (tx, reach, actor) => revokeCredential(tx, reach, requiredOption(ctx, 'id'), actor));
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
        ...items.map(
          (item) =>
            `${item.createdAt}  ${item.action.padEnd(26)} ${item.actor.padEnd(24)} ${item.companyId ?? '-'}  ${item.credentialId ?? ''}  ${JSON.stringify(item.details)}`,
        ),
      ],
    };
  },
};
