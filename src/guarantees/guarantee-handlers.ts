/** Thin handlers of endpoints 1 to 4: read the request, call one service, shape the response. */
import type { components } from '../generated/partner-api';
import type { HttpResult } from '../http/operation';
import { halPage, pageRequest } from '../http/paging';
import { etagOf, noneMatchHits } from '../http/preconditions';
import { header, sqlWriteHandler, tokenCheckingRead } from '../http/operation';
import { NotFound } from '../errors';
import { normaliseCpfCnpj } from '../validation';
import { createGuarantee } from './create-guarantee';
import { toRentalInsurance, type GuaranteeRow } from './guarantee-mapper';
import { findGuarantee, listGuarantees } from './guarantee-repository';
import { patchGuarantee } from './patch-guarantee';
import { foldForSearch } from './person-fields';
import { guaranteeId, ifMatchOf, partnerActor, queryList, queryValue } from './request-values';
import { serviceEffectsHeader, type Effect, type Status } from './status-machine';

type Schemas = components['schemas'];

/** A guarantee in a write response: the resource, its new ETag and the effects of the write. */
export function guaranteeWriteResult(status: number, row: GuaranteeRow, effects: Effect[], extraHeaders: Record<string, string> = {}): HttpResult {
  return {
    status,
    body: toRentalInsurance(row),
    headers: { ETag: etagOf(row.version), 'Service-Effects': serviceEffectsHeader(effects), ...extraHeaders },
  };
}

// The two busiest reads check the Bearer token in their own statement (auth/deferred-bearer.ts).
const listRentalInsurances = tokenCheckingRead(async (ctx, db) => {
  const page = pageRequest(ctx.request.query);
  const tenantCpfCnpj = queryValue(ctx, 'tenantCpfCnpj');
  const tenantName = queryValue(ctx, 'tenantName');
  const { rows, total } = await listGuarantees(
    db,
    ctx.bearer,
    {
      propertyExternalId: queryValue(ctx, 'propertyExternalId'),
      tenantCpfCnpj: tenantCpfCnpj === undefined ? undefined : normalisedForSearch(tenantCpfCnpj),
      tenantNameFolded: tenantName === undefined ? undefined : foldForSearch(tenantName),
      statuses: queryList(ctx, 'status') as Status[],
    },
    page,
  );
  return { status: 200, body: halPage(ctx, 'rentalInsurances', rows.map(toRentalInsurance), total, page) };
});

/** The filter matches the stored form; an invalid number is not an error, it just matches nothing. */
function normalisedForSearch(value: string): string {
  const result = normaliseCpfCnpj(value);
  return result.ok ? result.value : value.replace(/[.\-/]/g, '').toUpperCase();
}

const getRentalInsurance = tokenCheckingRead(async (ctx, db) => {
  const row = await findGuarantee(db, ctx.bearer, guaranteeId(ctx));
  if (!row) throw new NotFound();
  const etag = etagOf(row.version);
  if (noneMatchHits(header(ctx, 'if-none-match'), row.version)) return { status: 304, headers: { ETag: etag } };
  return { status: 200, body: toRentalInsurance(row), headers: { ETag: etag } };
});

// Create and patch, the partners' busiest writes, run every statement through sqlOf: their own transaction.
const createRentalInsurance = sqlWriteHandler(async (ctx, tx) => {
  const { row, effects } = await createGuarantee(tx, ctx.principal.companyId, partnerActor(ctx), ctx.request.body as Schemas['RentalInsuranceCreate']);
  return guaranteeWriteResult(201, row, effects, { Location: `${ctx.baseUrl}/v1/rental-insurances/${row.id}` });
});

const patchRentalInsurance = sqlWriteHandler(async (ctx, tx) => {
  const ifMatch = ifMatchOf(ctx);
  const { row, effects } = await patchGuarantee(
    tx,
    ctx.principal.companyId,
    partnerActor(ctx),
    guaranteeId(ctx),
    ifMatch,
    (ctx.request.body ?? {}) as Schemas['RentalInsurancePatch'],
  );
  return guaranteeWriteResult(200, row, effects);
});

export const guaranteeHandlers = {
  read: { listRentalInsurances, getRentalInsurance },
  write: { createRentalInsurance, patchRentalInsurance },
};
