/**
 * The storage model behind @node-oauth/oauth2-server for the client credentials grant.
 * Tokens are opaque, stored as a SHA-256 hash, and bound to the credential, the secret used,
 * the company and the granted scopes.
 */
import type { Client, ClientCredentialsModel, Token, User } from '@node-oauth/oauth2-server';
import type { Database } from '../database/prisma-client';
import { type Environment, hashAccessToken, newAccessToken, verifySecret } from './opaque-secrets';
import { isScopeFor, type CredentialKind } from './scopes';

export interface CredentialClient extends Client {
  credentialId: string;
  secretId: string;
  companyId: string;
  permissions: string[];
  /** Back office (issue #5): scopes are grantable only to the credential kind they belong to. */
  kind: CredentialKind;
}

/**
 * The hash an unknown, revoked or secret-less client ID is verified against, so that it costs the
 * caller exactly one scrypt verification like a wrong secret does, and answers in the same time (no
 * timing oracle for valid client IDs). Same parameters as every stored hash; the secret behind it
 * was random and thrown away, so nothing verifies against it.
 */
const DUMMY_SECRET_HASH = 'scrypt$16384$8$1$b-3JS8CEYlLLDirxyPRs5A$FYHTfzise-fm_xJDRxfM5PvwS5iIcjmpHhP5w7p8kp8';

export function createOAuthModel(db: Database, environment: Environment): ClientCredentialsModel {
  return {
    // Called with the token endpoint's own reading of the Basic header (basic-credentials.ts),
    // already form-decoded; never with what the library parsed.
    async getClient(clientId: string, secret: string) {
      const credential = await db.credential.findUnique({
        where: { clientId },
        include: { secrets: { where: { revokedAt: null } } },
      });
      if (!credential || credential.revokedAt || credential.secrets.length === 0) {
        await verifySecret(secret, DUMMY_SECRET_HASH);
        return false;
      }
      // During a rotation a credential holds two secrets, and a wrong secret costs two verifications:
      // that shows the ID exists, as a successful token request would. Client IDs carry 120 random
      // bits and failures are limited (token-guard.ts), so IDs cannot be found by guessing.
      for (const stored of credential.secrets) {
        if (await verifySecret(secret, stored.secretHash)) {
          const client: CredentialClient = {
            id: credential.clientId,
            grants: ['client_credentials'],
            accessTokenLifetime: 900,
            credentialId: credential.id,
            secretId: stored.id,
            companyId: credential.companyId,
            // A permission that does not belong to the credential's kind is never granted.
            permissions: credential.scopes.filter((scope) => isScopeFor(credential.kind, scope)),
            kind: credential.kind,
          };
          return client;
        }
      }
      return false;
    },

    async getUserFromClient(client: Client) {
      return { companyId: (client as CredentialClient).companyId };
    },

    // No scope requested: every permission of the credential. Anything beyond them: invalid_scope
    // (never narrowed silently).
    async validateScope(_user: User, client: Client, scope?: string[]) {
      const { permissions, kind } = client as CredentialClient;
      if (!scope || scope.length === 0) return permissions;
      const allowed = scope.every((requested) => isScopeFor(kind, requested) && permissions.includes(requested));
      return allowed ? [...new Set(scope)] : false;
    },

    async generateAccessToken() {
      return newAccessToken(environment);
    },

    async saveToken(token: Token, client: Client, user: User) {
      const credentialClient = client as CredentialClient;
      await db.accessToken.create({
        data: {
          tokenHash: hashAccessToken(token.accessToken),
          credentialId: credentialClient.credentialId,
          secretId: credentialClient.secretId,
          companyId: credentialClient.companyId,
          scopes: token.scope ?? [],
          expiresAt: token.accessTokenExpiresAt ?? new Date(Date.now() + 900_000),
        },
      });
      return { ...token, client, user };
    },

    // Bearer tokens are checked by our own guard (bearer-guard.ts); the library never calls this
    // for the client credentials grant, but its model type requires it.
    async getAccessToken() {
      return false;
    },
  };
}
