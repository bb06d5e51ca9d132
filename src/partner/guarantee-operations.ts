/** Endpoints 1 to 4: list, create, get and patch a guarantee. */
import { rentalInsuranceNotFound } from '../errors';
import { halPage, pageRequest } from '../http/paging';
import { defineOperation } from './partner-work';
import { guaranteeDomainChecks } from '../guarantees/domain-checks';
import { toRentalInsurance } from '../guarantees/guarantee-mapper';
import { guaranteeFilters, guaranteeId } from '../guarantees/request-values';

export const guaranteeOperations = [
  defineOperation('listRentalInsurances', {
    replicaRead: true,
    // A substring search of tenant names scans an index proportional to the company's guarantees.
    expensive: (query) => query['tenantName'] !== undefined,
    handler: async ({ query }, work, request) => {
      const page = pageRequest(query, request);
      const { rows, total } = await work.guarantees.list(guaranteeFilters(query), page);
      return { status: 200, body: halPage(request, 'rentalInsurances', rows.map(toRentalInsurance), total, page) };
    },
  }),

  defineOperation('getRentalInsurance', {
    handler: async ({ params }, work) => {
      const row = await work.guarantees.find(guaranteeId(params.id));
      if (!row) throw rentalInsuranceNotFound();
      return { status: 200, body: toRentalInsurance(row), version: row.version };
    },
  }),

  defineOperation('createRentalInsurance', {
    ruleProblems: guaranteeDomainChecks.createRentalInsurance,
    handler: async ({ body }, work) => {
      const { row, effects } = await work.guarantees.create(body);
      return { status: 201, body: toRentalInsurance(row), version: row.version, effects, location: `/v1/rental-insurances/${row.id}` };
    },
  }),

  defineOperation('patchRentalInsurance', {
    ruleProblems: guaranteeDomainChecks.patchRentalInsurance,
    precondition: ({ params }, work) => work.guarantees.lock(guaranteeId(params.id)),
    handler: async ({ body, current }, work) => {
      const { row, effects } = await work.guarantees.patch(current, body);
      return { status: 200, body: toRentalInsurance(row), version: row.version, effects };
    },
  }),
];
