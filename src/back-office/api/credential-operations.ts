/**
 * The back office's credential operations: staff oversee every credential (each read audited) and the audit log; an
 * agency's director creates, rotates and revokes the agency's partner credentials. A new secret is
 * shown once: the stored (and replayed) response holds `clientSecret: null`, and only the first
 * execution's response gets the secret, after the transaction committed (`revealOnce`).
 */
import { listAuditLog, recordAudit } from '../../auth/audit-log';
import {
  directorReach,
  findCredential,
  issueSecret,
  listCredentials,
  revokeCredential,
  revokeSecret,
  STAFF_REACH,
} from '../../auth/credential-administration';
import { createCredentialIn } from '../../auth/credentials';
import type { components } from '../../generated/back-office-api';
import { halPage, pageRequest } from '../../http/paging';
import { NotFound } from '../../errors';
import { defineOperation, SCOPE, type BackOfficeWork } from './back-office-work';
import { toAuditLogEntry, toCredential, toCredentialWithSecret } from './mappers';

type CredentialWithSecret = components['schemas']['CredentialWithSecret'];

/** Staff reach every credential; a director only the partner credentials of their own agency. */
function reachOf(work: BackOfficeWork, kind: 'staff' | 'director') {
  const operator = work.operator(kind, kind === 'staff' ? SCOPE.admin : SCOPE.manage);
  return { operator, reach: kind === 'staff' ? STAFF_REACH : directorReach(operator.companyId) };
}

const withSecret = (clientSecret: string) => (stored: CredentialWithSecret) => ({ ...stored, secret: { ...stored.secret, clientSecret } });

/**
 * Issue 37: a director's write naming another agency's credential is answered 404 (it does not exist
 * for them) and written to the audit log, outside the refused request's transaction.
 */
async function auditingForeignReach<T>(work: BackOfficeWork, kind: 'staff' | 'director', credentialId: string, change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (error) {
    if (kind === 'director' && error instanceof NotFound) {
      const operator = work.operator('director', SCOPE.manage);
      const found = UUID.test(credentialId)
        ? await work.db.credential.findUnique({ where: { id: credentialId }, select: { companyId: true } })
        : null;
      if (found && found.companyId !== operator.companyId) {
        await work.recordRefusal({
          actor: operator.audit,
          action: 'credential.access_refused',
          companyId: found.companyId,
          credentialId,
          details: { reason: "another agency's credential", actorCompanyId: operator.companyId },
        });
      }
    }
    throw error;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const revokeSecretAs = (kind: 'staff' | 'director') => ({
  handler: async ({ params }: { params: { credentialId: string; secretId: string } }, work: BackOfficeWork) => {
    const { operator, reach } = reachOf(work, kind);
    const view = await auditingForeignReach(work, kind, params.credentialId, () =>
      revokeSecret(work.db, reach, params.credentialId, params.secretId, operator.audit),
    );
    return { status: 200 as const, body: toCredential(view) };
  },
});

const revokeCredentialAs = (kind: 'staff' | 'director') => ({
  handler: async ({ params }: { params: { credentialId: string } }, work: BackOfficeWork) => {
    const { operator, reach } = reachOf(work, kind);
    const view = await auditingForeignReach(work, kind, params.credentialId, () =>
      revokeCredential(work.db, reach, params.credentialId, operator.audit),
    );
    return { status: 200 as const, body: toCredential(view) };
  },
});

export const credentialOperations = [
  defineOperation('listAgencyCredentials', {
    handler: async ({ query }, work, request) => {
      const { reach } = reachOf(work, 'director');
      const page = pageRequest(query, request);
      const { rows, total } = await listCredentials(work.db, reach, {}, page);
      return { status: 200, body: halPage(request, 'credentials', rows.map(toCredential), total, page) };
    },
  }),
  defineOperation('listCredentials', {
    handler: async ({ query }, work, request) => {
      const { operator, reach } = reachOf(work, 'staff');
      const page = pageRequest(query, request);
      const { rows, total } = await listCredentials(work.db, reach, { companyId: query.companyId, kind: query.kind }, page);
      // Staff reading agencies' credentials leave an entry: which agency (none: every agency) and how many were shown.
      await recordAudit(work.db, {
        actor: operator.audit,
        action: 'credentials.read',
        companyId: query.companyId ?? null,
        details: { kind: query.kind ?? null, page: page.number, credentials: rows.length },
      });
      return { status: 200, body: halPage(request, 'credentials', rows.map(toCredential), total, page) };
    },
  }),
  defineOperation('getCredential', {
    handler: async ({ params }, work) => {
      const { operator, reach } = reachOf(work, 'staff');
      const credential = await findCredential(work.db, reach, params.credentialId);
      await recordAudit(work.db, { actor: operator.audit, action: 'credentials.read', companyId: credential.companyId, credentialId: credential.id });
      return { status: 200, body: toCredential(credential) };
    },
  }),
  defineOperation('listAuditLog', {
    handler: async ({ query }, work, request) => {
      reachOf(work, 'staff');
      const page = pageRequest(query, request);
      const { rows, total } = await listAuditLog(
        work.db,
        { companyId: query.companyId, credentialId: query.credentialId, action: query.action },
        page,
      );
      return { status: 200, body: halPage(request, 'auditLogEntries', rows.map(toAuditLogEntry), total, page) };
    },
  }),
  defineOperation('createAgencyCredential', {
    handler: async ({ body }, work) => {
      const { operator, reach } = reachOf(work, 'director');
      const created = await createCredentialIn(work.db, work.environment, {
        companyId: operator.companyId,
        displayName: body.displayName,
        scopes: body.scopes,
        createdBy: operator.audit.label,
        kind: 'partner',
        via: operator.audit.via,
        actorClientId: operator.clientId,
        partnerCredentialsPerAgency: work.credentialsPerAgency,
      });
      const view = await findCredential(work.db, reach, created.credentialId);
      return { status: 201, body: toCredentialWithSecret(view, created.secretId), revealOnce: withSecret(created.clientSecret) };
    },
  }),
  defineOperation('issueAgencyCredentialSecret', {
    handler: async ({ params }, work) => {
      const { operator, reach } = reachOf(work, 'director');
      const issued = await auditingForeignReach(work, 'director', params.credentialId, () =>
        issueSecret(work.db, work.environment, reach, params.credentialId, operator.audit),
      );
      const view = await findCredential(work.db, reach, issued.credentialId);
      return { status: 201, body: toCredentialWithSecret(view, issued.secretId), revealOnce: withSecret(issued.clientSecret) };
    },
  }),
  defineOperation('revokeAgencyCredentialSecret', revokeSecretAs('director')),
  defineOperation('revokeAgencyCredential', revokeCredentialAs('director')),
  defineOperation('revokeCredentialSecret', revokeSecretAs('staff')),
  defineOperation('revokeCredential', revokeCredentialAs('staff')),
];
