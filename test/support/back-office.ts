/**
 * Moves guarantees the way the back office does (reviewers, signing, time), through the same
 * domain functions and status machine as the service, for tests of partner behaviour.
 */
import * as review from '../../src/back-office/review-actions';
import type { TestApp } from './test-app';

export const REVIEWER = { name: 'Ana Revisora', serviceAccount: false };

export const standardTerms: review.ApprovalTerms = {
  installmentAmountCents: 45604n,
  coverageLimitCents: 13681530n,
  rentCoverageLimitCents: 10500000n,
  startBillingDate: '2026-12-01',
};

export function backOffice(t: TestApp) {
  type Tx = Parameters<Parameters<TestApp['db']['$transaction']>[0]>[0];
  // Each action on the guarantee locked first, as the back office does.
  const run = <T>(id: number, action: (tx: Tx, guarantee: review.ReviewTarget) => Promise<T>) =>
    t.db.$transaction(async (tx) => action(tx, await review.lockForReview(tx, BigInt(id))));
  return {
    approve: (id: number, terms = standardTerms) => run(id, (tx, guarantee) => review.approve(tx, guarantee, REVIEWER, terms)),
    decline: (id: number) => run(id, (tx, guarantee) => review.decline(tx, guarantee, REVIEWER)),
    requestInformation: (id: number, comment = 'Send the income statement of the tenant.') =>
      run(id, (tx, guarantee) => review.requestInformation(tx, guarantee, REVIEWER, comment)),
    envelopeReady: (id: number) => run(id, (tx, guarantee) => review.markEnvelopeReady(tx, guarantee)),
    // cpfCnpj as the partner API reads it (the contract makes it nullable).
    sign: (id: number, role: 'document' | 'tenant' | 'co_tenant', cpfCnpj?: string | null, outcome: 'signed' | 'refused' = 'signed') =>
      run(id, (tx, guarantee) => review.recordSignature(tx, guarantee, { role, cpfCnpj: cpfCnpj ?? undefined }, outcome)),
    expire: (id: number) => run(id, (tx, guarantee) => review.expireProposal(tx, guarantee)),
    terminate: (id: number) => run(id, (tx, guarantee) => review.terminate(tx, guarantee)),
    archive: (id: number) => run(id, (tx, guarantee) => review.archive(tx, guarantee)),
  };
}
