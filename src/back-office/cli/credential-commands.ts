/** Every credential command of the admin tool, in the order `--help` lists them. */
import {
  listAuditLogCommand,
  listCredentialsCommand,
  revokeCredentialCommand,
  revokeSecretCommand,
  rotateCredentialCommand,
} from './credential-admin-commands';
import { createCredentialCommand, createDirectorCommand, createStaffCommand } from './credential-creation-commands';
import type { CliCommand } from './cli-command';

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
