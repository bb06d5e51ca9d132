/** Endpoints 1 to 4: list, create, get and patch a guarantee. */
import { rentalInsuranceNotFound } from '../errors';
import { halPage, pageRequest } from '../http/paging';
import { defineOperation } from './partner-work';
import { toRentalInsurance, guaranteeId } from '../guarantees/guarantee-mapper';
import { createColumns, guaranteeFilters, patchColumns } from '../guarantees/guarantee-input';

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
    normalise: ({ body }, problems) => createColumns(problems, body),
    handler: async ({ normalised }, work) => {
      const { row, effects, rentalInsurance } = await work.guarantees.create(normalised);
      return { status: 201, body: rentalInsurance, version: row.version, effects, location: `/v1/rental-insurances/${row.id}` };
    },
  }),

  defineOperation('patchRentalInsurance', {
    normalise: ({ body }, problems) => patchColumns(problems, body),
    precondition: ({ params }, work) => work.guarantees.lock(guaranteeId(params.id)),
    handler: async ({ normalised, current }, work) => {
      const { row, effects, rentalInsurance } = await work.guarantees.patch(current, normalised);
      return { status: 200, body: rentalInsurance, version: row.version, effects };
    },
  }),
];
