/** Endpoints 5 to 13: history, comments, signatures, accept and refuse, co-tenants. */
import { rentalInsuranceNotFound } from '../errors';
import { halPage, pageRequest } from '../http/paging';
import { defineOperation, type PartnerWork } from './partner-work';
import { coTenantChanges, coTenantKey, newCoTenantColumns } from '../guarantees/co-tenant-writes';
import { guaranteeDomainChecks } from '../guarantees/domain-checks';
import { toCoTenant, toRentalInsurance } from '../guarantees/guarantee-mapper';
import { toHistoryEntry } from '../guarantees/history';
import { guaranteeId } from '../guarantees/request-values';

/** The partner's answer to an approved proposal, on the tenant's behalf. */
const decision = (kind: 'accept' | 'refuse') => ({
  handler: async ({ params }: { params: { id: number } }, work: PartnerWork) => {
    const { row, effects } = await work.guarantees.decide(guaranteeId(params.id), kind);
    return { status: 200 as const, body: toRentalInsurance(row), version: row.version, effects };
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
    ruleProblems: guaranteeDomainChecks.addCoTenant,
    // The new co-tenant's data is checked (400) before the guarantee is looked up (404), once: the
    // handler receives the checked columns with the locked guarantee.
    precondition: async ({ params, body }, work) => {
      const columns = newCoTenantColumns(body);
      return { ...(await work.guarantees.lock(guaranteeId(params.id))), columns };
    },
    handler: async ({ current }, work) => {
      const { columns, ...guarantee } = current;
      const { row, effects } = await work.guarantees.addCoTenant(guarantee, columns);
      const added = row.coTenants[row.coTenants.length - 1]!;
      return {
        status: 201,
        body: toRentalInsurance(row),
        version: row.version,
        effects,
        location: `/v1/rental-insurances/${row.id}/co-tenants/${added.cpfCnpj}`,
      };
    },
  }),

  defineOperation('patchCoTenant', {
    ruleProblems: guaranteeDomainChecks.patchCoTenant,
    precondition: async ({ params, body }, work) => {
      const cpfCnpj = coTenantKey(params.cpfCnpj);
      const changes = coTenantChanges(body, cpfCnpj);
      return { ...(await work.guarantees.lock(guaranteeId(params.id))), cpfCnpj, changes };
    },
    handler: async ({ current }, work) => {
      const { cpfCnpj, changes, ...guarantee } = current;
      const { row, effects } = await work.guarantees.patchCoTenant(guarantee, cpfCnpj, changes);
      return { status: 200, body: toRentalInsurance(row), version: row.version, effects };
    },
  }),

  defineOperation('removeCoTenant', {
    precondition: async ({ params }, work) => {
      const cpfCnpj = coTenantKey(params.cpfCnpj);
      return { ...(await work.guarantees.lock(guaranteeId(params.id))), cpfCnpj };
    },
    handler: async ({ current }, work) => {
      const { cpfCnpj, ...guarantee } = current;
      const { row, effects } = await work.guarantees.removeCoTenant(guarantee, cpfCnpj);
      return { status: 200, body: toRentalInsurance(row), version: row.version, effects };
    },
  }),
];
