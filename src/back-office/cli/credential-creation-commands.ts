/**
 * Credential creation in the admin tool: an agency director creates a partner credential and sees
 * its secret once; the bootstrap of staff and director credentials (back office), which only the
 * admin tool can create. Same service functions as the back-office API.
 */
import {
  createCredential,
  createDirectorCredential,
  createStaffCredential,
  CredentialInputError,
  type CreatedCredential,
} from '../../auth/credentials';
import { SCOPES, STAFF_SCOPES } from '../../auth/scopes';
import { optionalText, requiredOption, UsageError, type CliCommand, type CommandContext, type CommandResult } from './cli-command';

export const createCredentialCommand: CliCommand = {
  name: 'credentials create',
  summary: 'Create a partner credential for an agency (at most CREDENTIALS_PER_AGENCY active ones); prints the client secret once',
  options: {
    company: { description: 'company (agency) id; created if new', required: true },
    'company-name': { description: 'company display name when it is new' },
    name: { description: 'display name of the credential (appears as creator in history)', required: true },
    scopes: { description: `comma- or space-separated scopes: ${SCOPES.join(', ')}`, required: true },
    director: { description: 'name of the agency director creating it (audit log)', required: true },
  },
  async run(ctx) {
    const scopes = requiredOption(ctx, 'scopes')
      .split(/[\s,]+/)
      .filter(Boolean);
    try {
      const credential = await createCredential(ctx.db, ctx.config.ENVIRONMENT, {
        companyId: requiredOption(ctx, 'company'),
        companyName: typeof ctx.options['company-name'] === 'string' ? ctx.options['company-name'] : undefined,
        displayName: requiredOption(ctx, 'name'),
        scopes,
        createdBy: `director:${requiredOption(ctx, 'director')}`,
        via: 'cli',
        partnerCredentialsPerAgency: ctx.config.CREDENTIALS_PER_AGENCY,
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

const scopesOption = (ctx: CommandContext): string[] =>
  requiredOption(ctx, 'scopes')
    .split(/[\s,]+/)
    .filter(Boolean);

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
  summary: "Create a staff member's credential for the back-office API; prints the client secret once",
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
