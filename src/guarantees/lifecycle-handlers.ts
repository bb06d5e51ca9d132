/** Thin handlers of endpoints 5 to 12: history, comments, signatures, accept/refuse, co-tenants. */
import type { Queryable } from '../database/prisma-client';
import { sqlOf, type AnyTransaction } from '../database/sql';
import { NotFound } from '../errors';
import type { components } from '../generated/partner-api';
import { sqlWriteHandler, tokenCheckingRead, type OperationContext, type RequestContext } from '../http/operation';
import { companyBinding, type CompanyScope } from '../auth/deferred-bearer';
import { addCoTenant, patchCoTenant, removeCoTenant } from './co-tenant-writes';
import { guaranteeWriteResult } from './guarantee-handlers';
import { appendHistory, listHistory, toHistoryEntry } from './history';
import { decideProposal } from './proposal-decisions';
import { guaranteeId, ifMatchOf, partnerActor } from './request-values';
import { listSignatures } from './signatures';
import { serviceEffectsHeader, type Status } from './status-machine';

type Schemas = components['schemas'];

/**
 * The guarantee's status, or 404 when it is not the company's. `scope` may be a Bearer token that
 * the same statement checks (the reads below), which is settled before the 404.
 */
async function ownedStatus(db: Queryable | AnyTransaction, scope: CompanyScope, ctx: RequestContext): Promise<{ id: bigint; status: Status }> {
  const binding = companyBinding(scope);
  const rows = await sqlOf(db).rows<{ id: bigint; status: Status; bearerToken?: unknown }>(
    `${binding.withClause()} SELECT id, status::text AS status${binding.tokenColumn} FROM rental_insurances WHERE company_id = ${binding.company} AND id = $2`,
    [binding.firstValue, guaranteeId(ctx)],
    binding.statementName('owned-guarantee-status'),
  );
  await binding.settle(rows);
  if (!rows[0]) throw new NotFound();
  return { id: rows[0].id, status: rows[0].status };
}

// History and signatures check the Bearer token in the statement that finds the guarantee.
const listRentalInsuranceHistory = tokenCheckingRead(async (ctx, db) => {
  const { id } = await ownedStatus(db, ctx.bearer, ctx);
  return { status: 200, body: (await listHistory(db, id)).map(toHistoryEntry) };
});

const listRentalInsuranceSignatures = tokenCheckingRead(async (ctx, db) => {
  const { id } = await ownedStatus(db, ctx.bearer, ctx);
  return { status: 200, body: await listSignatures(db, id) };
});

// Comments are allowed in every status and change neither data, status nor version.
const createRentalInsuranceComment = sqlWriteHandler(async (ctx, tx) => {
  const { id, status } = await ownedStatus(tx, { companyId: ctx.principal.companyId }, ctx);
  const entry = await appendHistory(tx, {
    rentalInsuranceId: id,
    kind: 'comment',
    actor: partnerActor(ctx),
    comment: (ctx.request.body as Schemas['CommentCreate']).comment,
    previousStatus: status,
    status,
  });
  return { status: 201, body: toHistoryEntry(entry), headers: { 'Service-Effects': serviceEffectsHeader([]) } };
});

const decision = (kind: 'accept' | 'refuse') =>
  sqlWriteHandler(async (ctx, tx) => {
    const { row, effects } = await decideProposal(tx, ctx.principal.companyId, partnerActor(ctx), guaranteeId(ctx), kind);
    return guaranteeWriteResult(200, row, effects);
  });

const coTenantTarget = (ctx: OperationContext) => ({
  companyId: ctx.principal.companyId,
  actor: partnerActor(ctx),
  id: guaranteeId(ctx),
  ifMatch: ifMatchOf(ctx),
});

const addCoTenantHandler = sqlWriteHandler(async (ctx, tx) => {
  const target = coTenantTarget(ctx);
  const { row, effects } = await addCoTenant(tx, target, ctx.request.body as Schemas['CoTenantCreate']);
  const added = row.coTenants[row.coTenants.length - 1]!;
  return guaranteeWriteResult(201, row, effects, {
    Location: `${ctx.baseUrl}/v1/rental-insurances/${row.id}/co-tenants/${added.cpfCnpj}`,
  });
});

const patchCoTenantHandler = sqlWriteHandler(async (ctx, tx) => {
  const { row, effects } = await patchCoTenant(tx, coTenantTarget(ctx), ctx.request.params['cpfCnpj'] ?? '', (ctx.request.body ?? {}) as Schemas['CoTenantPatch']);
  return guaranteeWriteResult(200, row, effects);
});

const removeCoTenantHandler = sqlWriteHandler(async (ctx, tx) => {
  const { row, effects } = await removeCoTenant(tx, coTenantTarget(ctx), ctx.request.params['cpfCnpj'] ?? '');
  return guaranteeWriteResult(200, row, effects);
});

export const lifecycleHandlers = {
  read: { listRentalInsuranceHistory, listRentalInsuranceSignatures },
  write: {
    createRentalInsuranceComment,
    acceptRentalInsurance: decision('accept'),
    refuseRentalInsurance: decision('refuse'),
    addCoTenant: addCoTenantHandler,
    patchCoTenant: patchCoTenantHandler,
    removeCoTenant: removeCoTenantHandler,
  },
};
