/**
 * Moves guarantees the way the back office does (reviewers, signing, time), through the same
 * domain functions and status machine as the service, for tests of partner behaviour.
 */
import * as review from '../../src/guarantees/transitions/review-actions';
import { inUnitOfWork, type UnitOfWork } from '../../src/database/unit-of-work';
import type { TestApp } from './test-app';

export const REVIEWER = { name: 'Ana Revisora', serviceAccount: false };

export const standardTerms: review.ApprovalTerms = {
  installmentAmountCents: 45604n,
  coverageLimitCents: 13681530n,
  rentCoverageLimitCents: 10500000n,
  startBillingDate: '2026-12-01',
};

export function backOffice(t: TestApp) {
  // Each action on the guarantee locked first, as the back office does, in a unit of work flushed before COMMIT.
  const run = <T>(id: number, action: (unit: UnitOfWork, guarantee: review.ReviewTarget) => Promise<T>) =>
    inUnitOfWork(t.db, async (unit) => action(unit, await review.lockForReview(unit.db, BigInt(id))));
  return {
    approve: (id: number, terms = standardTerms) => run(id, (unit, guarantee) => review.approve(unit, guarantee, REVIEWER, terms)),
    decline: (id: number) => run(id, (unit, guarantee) => review.decline(unit, guarantee, REVIEWER)),
    requestInformation: (id: number, comment = 'Send the income statement of the tenant.') =>
      run(id, (unit, guarantee) => review.requestInformation(unit, guarantee, REVIEWER, comment)),
    envelopeReady: (id: number) => run(id, (unit, guarantee) => review.markEnvelopeReady(unit, guarantee)),
    // cpfCnpj as the partner API reads it (the contract makes it nullable).
    sign: (id: number, role: 'document' | 'tenant' | 'co_tenant', cpfCnpj?: string | null, outcome: 'signed' | 'refused' = 'signed') =>
      run(id, (unit, guarantee) => review.recordSignature(unit, guarantee, { role, cpfCnpj: cpfCnpj ?? undefined }, outcome)),
    expire: (id: number) => run(id, (unit, guarantee) => review.expireProposal(unit, guarantee)),
    terminate: (id: number) => run(id, (unit, guarantee) => review.terminate(unit, guarantee)),
    archive: (id: number) => run(id, (unit, guarantee) => review.archive(unit, guarantee)),
  };
}
