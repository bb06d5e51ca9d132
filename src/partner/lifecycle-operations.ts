/** Endpoints 5 to 13: history, comments, signatures, accept and refuse, co-tenants. */
import { rentalInsuranceNotFound } from '../errors';
import { halPage, pageRequest } from '../http/paging';
import { defineOperation, type PartnerWork } from './partner-work';
import { coTenantChanges, coTenantKey, newCoTenantColumns } from '../guarantees/guarantee-input';
import { guaranteeId, toCoTenant, toHistoryEntry } from '../guarantees/guarantee-mapper';

/** The partner's answer to an approved proposal, on the tenant's behalf. */
const decision = (kind: 'accept' | 'refuse') => ({
  handler: async ({ params }: { params: { id: number } }, work: PartnerWork) => {
    const { row, effects, rentalInsurance } = await work.guarantees.decide(guaranteeId(params.id), kind);
    return { status: 200 as const, body: rentalInsurance, version: row.version, effects };
  },
});

export const lifecycleOperations = [
  defineOperation('listRentalInsuranceHistory', {
    handler: async ({ params, query }, work, request) => {
      const page = pageRequest(query, request);
      const { rows, total } = await work.guarantees.history(guaranteeId(params.id), page);
      return { status: 200, body: halPage(request, 'historyEntries', rows.map(toHistoryEntry), total, page) };
    },
  }),

  defineOperation('createRentalInsuranceComment', {
    handler: async ({ params, body }, work) => {
      const entry = await work.guarantees.comment(guaranteeId(params.id), body.comment);
      return { status: 201, body: toHistoryEntry(entry), effects: [] };
    },
  }),

  defineOperation('listRentalInsuranceSignatures', {
    handler: async ({ params, query }, work, request) => {
      const page = pageRequest(query, request);
      const { rows, total } = await work.guarantees.signatures(guaranteeId(params.id), page);
      return { status: 200, body: halPage(request, 'signatures', rows, total, page) };
    },
  }),

  defineOperation('acceptRentalInsurance', decision('accept')),
  defineOperation('refuseRentalInsurance', decision('refuse')),

  defineOperation('listCoTenants', {
    handler: async ({ params, query }, work, request) => {
      const row = await work.guarantees.find(guaranteeId(params.id));
      if (!row) throw rentalInsuranceNotFound();
      const page = pageRequest(query, request);
      // The repository reads them in the order they were added.
      const coTenants = row.coTenants.slice(page.offset, page.offset + page.size).map(toCoTenant);
      return { status: 200, body: halPage(request, 'coTenants', coTenants, row.coTenants.length, page) };
    },
  }),

  defineOperation('addCoTenant', {
    // The new co-tenant's data is checked (400) before the guarantee is looked up (404), once.
    normalise: ({ body }, problems) => newCoTenantColumns(problems, body),
    precondition: ({ params }, work) => work.guarantees.lock(guaranteeId(params.id)),
    handler: async ({ current, normalised }, work) => {
      const { row, effects, rentalInsurance } = await work.guarantees.addCoTenant(current, normalised);
      const added = row.coTenants[row.coTenants.length - 1]!;
      return {
        status: 201,
        body: rentalInsurance,
        version: row.version,
        effects,
        location: `/v1/rental-insurances/${row.id}/co-tenants/${added.cpfCnpj}`,
      };
    },
  }),

  defineOperation('patchCoTenant', {
    normalise: ({ params, body }, problems) => coTenantChanges(problems, params.cpfCnpj, body),
    precondition: ({ params }, work) => work.guarantees.lock(guaranteeId(params.id)),
    handler: async ({ current, normalised }, work) => {
      const { row, effects, rentalInsurance } = await work.guarantees.patchCoTenant(current, normalised.cpfCnpj, normalised.changes);
      return { status: 200, body: rentalInsurance, version: row.version, effects };
    },
  }),

  defineOperation('removeCoTenant', {
    normalise: ({ params }, problems) => coTenantKey(problems, params.cpfCnpj),
    precondition: ({ params }, work) => work.guarantees.lock(guaranteeId(params.id)),
    handler: async ({ current, normalised }, work) => {
      const { row, effects, rentalInsurance } = await work.guarantees.removeCoTenant(current, normalised);
      return { status: 200, body: rentalInsurance, version: row.version, effects };
    },
  }),
];
