/** The sandbox-only operations (`x-sandbox-only` in the contract; production does not route them). */
import { toTimestamp } from '../database/column-values';
import { toRentalInsurance, guaranteeId } from '../guarantees/guarantee-mapper';
import { defineOperation } from './partner-work';

export const sandboxOperations = [
  defineOperation('advanceRentalInsuranceClock', {
    handler: async ({ params, body }, work) => {
      const { previousNow, now, row } = await work.sandbox.advanceClock(guaranteeId(params.id), body);
      return {
        status: 200,
        body: { previousNow: toTimestamp(previousNow)!, now: toTimestamp(now)!, rentalInsurance: toRentalInsurance(row) },
        version: row.version,
        effects: [],
      };
    },
  }),
];
