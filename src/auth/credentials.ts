/**
 * Partner credentials (OAuth clients) of an agency: creation with a secret shown once, secret
 * rotation and revocation. Revoking deletes the tokens issued with it, so they fail at once.
 */
import type { Database } from '../database/prisma-client';
import { type Environment, hashSecret, newClientId, newClientSecret } from './opaque-secrets';
import { isScope, type Scope } from './scopes';

export interface NewCredential {
  companyId: string;
  companyName?: string;
  displayName: string;
  scopes: string[];
  createdBy: string;
}

export interface CreatedCredential {
  credentialId: string;
  clientId: string;
  /** Shown once; only its hash is stored. */
  clientSecret: string;
  secretId: string;
  companyId: string;
  displayName: string;
  scopes: Scope[];
}

export class CredentialInputError extends Error {}

export async function createCredential(db: Database, environment: Environment, input: NewCredential): Promise<CreatedCredential> {
  const unknown = input.scopes.filter((scope) => !isScope(scope));
  if (unknown.length > 0) throw new CredentialInputError(`Unknown scope(s): ${unknown.join(', ')}`);
  if (input.scopes.length === 0) throw new CredentialInputError('A credential needs at least one scope');
  if (!input.companyId.trim()) throw new CredentialInputError('A credential needs a company id');
  if (!input.displayName.trim()) throw new CredentialInputError('A credential needs a display name');
  const clientSecret = newClientSecret(environment);
  const secretHash = await hashSecret(clientSecret);
  const scopes = [...new Set(input.scopes)] as Scope[];
  return db.$transaction(async (tx) => {
    await tx.company.upsert({
      where: { id: input.companyId },
      create: { id: input.companyId, name: input.companyName ?? input.companyId },
      update: {},
    });
    const credential = await tx.credential.create({
      data: {
        clientId: newClientId(environment),
        companyId: input.companyId,
        displayName: input.displayName,
        scopes,
        createdBy: input.createdBy,
        secrets: { create: { secretHash } },
      },
      include: { secrets: true },
    });
    await tx.auditLogEntry.create({
      data: {
        actor: input.createdBy,
        action: 'credential.created',
        companyId: input.companyId,
        credentialId: credential.id,
        details: { clientId: credential.clientId, scopes, displayName: input.displayName },
      },
    });
    return {
      credentialId: credential.id,
      clientId: credential.clientId,
      clientSecret,
      secretId: credential.secrets[0]!.id,
      companyId: credential.companyId,
      displayName: credential.displayName,
      scopes,
    };
  });
}
