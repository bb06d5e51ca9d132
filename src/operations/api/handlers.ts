/**
 * Thin handlers of the operations API (openapi/operations.yaml), one per operationId: read the
 * validated request, call one service function (the same ones the admin tool calls), shape the
 * response. Writes run inside the shared idempotency pipeline (src/http/idempotency.ts).
 */
import { listAuditLog } from '../../auth/audit-log';
import {
  createCredentialIn,
  directorReach,
  findCredential,
  issueSecret,
  listCredentials,
  revokeCredential,
  revokeSecret,
  STAFF_REACH,
  type CredentialReach,
} from '../../auth/credentials';
import type { Environment } from '../../auth/opaque-secrets';
import type { Queryable, Transaction } from '../../database/prisma-client';
import type { components } from '../../generated/operations-api';
import type { StatementType } from '../../generated/prisma/client';
import { guaranteeWriteResult } from '../../guarantees/guarantee-handlers';
import { toRentalInsurance } from '../../guarantees/guarantee-mapper';
import { listHistory, toHistoryEntry } from '../../guarantees/history';
import { guaranteeId, queryValue } from '../../guarantees/request-values';
import { listSignatures } from '../../guarantees/signatures';
import { serviceEffectsHeader } from '../../guarantees/status-machine';
import { header, type HttpResult, type OperationContext, type OperationHandlers, type PrincipalReadHandler, type PrismaWriteHandler } from '../../http/operation';
import { halPage, pageRequest } from '../../http/paging';
import { etagOf, parseIfMatch } from '../../http/preconditions';
import { postLedgerEntry } from './ledger-posting';
import { toAuditLogEntry, toCredential, toCredentialWithSecret, toPostedStatementEntry } from './mappers';
import { operatorOf } from './operator';
import { addStaffComment, applyReviewOperation, findAnyGuarantee, type ReviewOperation } from './review-service';

type Schemas = components['schemas'];

const REVIEW = 'ops:guarantees:review';
const LEDGER = 'ops:ledger:write';
const ADMIN = 'ops:credentials:admin';
const MANAGE = 'ops:credentials:manage';

export interface OperationsHandlerOptions {
  environment: Environment;
}

export function operationsHandlers(options: OperationsHandlerOptions): OperationHandlers {
  return {
    read: {
      ...reviewReads,
      ...credentialReads,
    },
    write: {
      ...reviewWrites,
      postStatementEntry,
      ...credentialWrites,
      createAgencyCredential: withSecretShownOnce(createAgencyCredential(options.environment)),
      issueAgencyCredentialSecret: withSecretShownOnce(issueAgencyCredentialSecret(options.environment)),
    },
    publicRead: {},
  };
}

// ---- Guarantees -----------------------------------------------------------------------------------

const reviewReads: Record<string, PrincipalReadHandler> = {
  async getRentalInsuranceForReview(ctx, db) {
    await operatorOf(db, ctx, 'staff', REVIEW);
    const row = await findAnyGuarantee(db, guaranteeId(ctx));
    return { status: 200, body: toRentalInsurance(row), headers: { ETag: etagOf(row.version), 'Company-Id': row.companyId } };
  },
  async listRentalInsuranceHistoryForReview(ctx, db) {
    await operatorOf(db, ctx, 'staff', REVIEW);
    const row = await findAnyGuarantee(db, guaranteeId(ctx));
    return { status: 200, body: (await listHistory(db, row.id)).map(toHistoryEntry) };
  },
  async listRentalInsuranceSignaturesForReview(ctx, db) {
    await operatorOf(db, ctx, 'staff', REVIEW);
    const row = await findAnyGuarantee(db, guaranteeId(ctx));
    return { status: 200, body: await listSignatures(db, row.id) };
  },
};

/** A guarantee operation: the operation from the request, applied under the staff member's name. */
const reviewWrite =
  (operation: (ctx: OperationContext) => ReviewOperation): PrismaWriteHandler =>
  async (ctx, tx) => {
    const staff = await operatorOf(tx, ctx, 'staff', REVIEW);
    const ifMatchHeader = header(ctx, 'if-match');
    const ifMatch = ifMatchHeader === undefined ? undefined : parseIfMatch(ifMatchHeader);
    const { row, effects } = await applyReviewOperation(tx, guaranteeId(ctx), staff.actor, operation(ctx), ifMatch);
    return guaranteeWriteResult(200, row, effects);
  };

const bodyOf = <T>(ctx: OperationContext): T => (ctx.request.body ?? {}) as T;

const reviewWrites: Record<string, PrismaWriteHandler> = {
  approveRentalInsurance: reviewWrite((ctx) => ({ type: 'approve', terms: bodyOf<Schemas['ApprovalTerms']>(ctx) })),
  declineRentalInsurance: reviewWrite((ctx) => ({ type: 'decline', comment: bodyOf<Schemas['DecisionComment']>(ctx).comment })),
  requestRentalInsuranceInformation: reviewWrite((ctx) => ({ type: 'request_information', comment: bodyOf<Schemas['InformationRequest']>(ctx).comment })),
  markSigningEnvelopeReady: reviewWrite(() => ({ type: 'envelope_ready' })),
  recordSignature: reviewWrite((ctx) => {
    const body = bodyOf<Schemas['SignatureOutcome']>(ctx);
    return { type: 'signature', role: body.role, cpfCnpj: body.cpfCnpj, outcome: body.outcome };
  }),
  expireRentalInsurance: reviewWrite(() => ({ type: 'expire' })),
  terminateRentalInsurance: reviewWrite(() => ({ type: 'terminate' })),
  archiveRentalInsurance: reviewWrite(() => ({ type: 'archive' })),
  async createStaffComment(ctx, tx) {
    const staff = await operatorOf(tx, ctx, 'staff', REVIEW);
    const entry = await addStaffComment(tx, guaranteeId(ctx), staff.actor, bodyOf<Schemas['CommentCreate']>(ctx).comment);
    return { status: 201, body: toHistoryEntry(entry), headers: { 'Service-Effects': serviceEffectsHeader([]) } };
  },
};

// ---- Ledger ---------------------------------------------------------------------------------------

const postStatementEntry: PrismaWriteHandler = async (ctx, tx) => {
  const staff = await operatorOf(tx, ctx, 'staff', LEDGER);
  const body = bodyOf<Schemas['StatementEntryPost']>(ctx);
  const entry = await postLedgerEntry(
    tx,
    { companyId: body.companyId, date: body.date, type: body.type as StatementType, amount: body.amount, description: body.description },
    staff.audit,
  );
  return { status: 201, body: toPostedStatementEntry(entry) };
};

// ---- Credentials ----------------------------------------------------------------------------------

/** Staff reach every credential; a director only the partner credentials of their own agency. */
async function reachOf(db: Queryable, ctx: OperationContext, kind: 'staff' | 'director') {
  const operator = await operatorOf(db, ctx, kind, kind === 'staff' ? ADMIN : MANAGE);
  const reach: CredentialReach = kind === 'staff' ? STAFF_REACH : directorReach(operator.companyId);
  return { operator, reach };
}

const credentialPage = async (ctx: OperationContext, db: Queryable, kind: 'staff' | 'director'): Promise<HttpResult> => {
  const { reach } = await reachOf(db, ctx, kind);
  const page = pageRequest(ctx.request.query);
  const filter = kind === 'staff' ? { companyId: queryValue(ctx, 'companyId'), kind: queryValue(ctx, 'kind') as Schemas['CredentialKind'] | undefined } : {};
  const { rows, total } = await listCredentials(db, reach, filter, page);
  return { status: 200, body: halPage(ctx, 'credentials', rows.map(toCredential), total, page) };
};

const credentialId = (ctx: OperationContext) => ctx.request.params['credentialId'] ?? '';
const secretId = (ctx: OperationContext) => ctx.request.params['secretId'] ?? '';

const credentialReads: Record<string, PrincipalReadHandler> = {
  listAgencyCredentials: (ctx, db) => credentialPage(ctx, db, 'director'),
  listCredentials: (ctx, db) => credentialPage(ctx, db, 'staff'),
  async getCredential(ctx, db) {
    const { reach } = await reachOf(db, ctx, 'staff');
    return { status: 200, body: toCredential(await findCredential(db, reach, credentialId(ctx))) };
  },
  async listAuditLog(ctx, db) {
    await reachOf(db, ctx, 'staff');
    const page = pageRequest(ctx.request.query);
    const filter = { companyId: queryValue(ctx, 'companyId'), credentialId: queryValue(ctx, 'credentialId'), action: queryValue(ctx, 'action') };
    const { rows, total } = await listAuditLog(db, filter, page);
    return { status: 200, body: halPage(ctx, 'auditLogEntries', rows.map(toAuditLogEntry), total, page) };
  },
};

const revokeSecretAs =
  (kind: 'staff' | 'director'): PrismaWriteHandler =>
  async (ctx, tx) => {
    const { operator, reach } = await reachOf(tx, ctx, kind);
    return { status: 200, body: toCredential(await revokeSecret(tx, reach, credentialId(ctx), secretId(ctx), operator.audit)) };
  };

const revokeCredentialAs =
  (kind: 'staff' | 'director'): PrismaWriteHandler =>
  async (ctx, tx) => {
    const { operator, reach } = await reachOf(tx, ctx, kind);
    return { status: 200, body: toCredential(await revokeCredential(tx, reach, credentialId(ctx), operator.audit)) };
  };

const credentialWrites: Record<string, PrismaWriteHandler> = {
  revokeAgencyCredentialSecret: revokeSecretAs('director'),
  revokeAgencyCredential: revokeCredentialAs('director'),
  revokeCredentialSecret: revokeSecretAs('staff'),
  revokeCredential: revokeCredentialAs('staff'),
};

/** A write whose first response shows a new secret: the result to store, and the secret to add. */
type SecretWrite = (ctx: OperationContext, tx: Transaction) => Promise<{ result: HttpResult; clientSecret: string }>;

function createAgencyCredential(environment: Environment): SecretWrite {
  return async (ctx, tx) => {
    const { operator, reach } = await reachOf(tx, ctx, 'director');
    const body = bodyOf<Schemas['CredentialCreate']>(ctx);
    const created = await createCredentialIn(tx, environment, {
      companyId: operator.companyId,
      displayName: body.displayName,
      scopes: body.scopes,
      createdBy: operator.audit.label,
      kind: 'partner',
      via: 'operations-api',
      actorClientId: ctx.principal.clientId,
    });
    const view = await findCredential(tx, reach, created.credentialId);
    return { result: { status: 201, body: toCredentialWithSecret(view, created.secretId) }, clientSecret: created.clientSecret };
  };
}

function issueAgencyCredentialSecret(environment: Environment): SecretWrite {
  return async (ctx, tx) => {
    const { operator, reach } = await reachOf(tx, ctx, 'director');
    const issued = await issueSecret(tx, environment, reach, credentialId(ctx), operator.audit);
    const view = await findCredential(tx, reach, issued.credentialId);
    return { result: { status: 201, body: toCredentialWithSecret(view, issued.secretId) }, clientSecret: issued.clientSecret };
  };
}

/**
 * A secret-issuing write: the stored (and replayed) response holds `clientSecret: null`; only the
 * first execution's response gets the secret, after the transaction committed. So the secret is
 * shown once and never stored anywhere but as its hash.
 */
function withSecretShownOnce(write: SecretWrite): PrismaWriteHandler {
  return async (ctx, tx) => {
    const { result, clientSecret } = await write(ctx, tx);
    return {
      ...result,
      firstResponseOnly: (stored) => {
        const body = stored as Schemas['CredentialWithSecret'];
        return { ...body, secret: { ...body.secret, clientSecret } };
      },
    };
  };
}
