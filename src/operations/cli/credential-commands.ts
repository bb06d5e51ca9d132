/** Credential commands of the admin tool: an agency director creates a credential and sees its secret once. */
import { createCredential, CredentialInputError } from '../../auth/credentials';
import { SCOPES } from '../../auth/scopes';
import { requiredOption, UsageError, type CliCommand } from './cli-command';

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
