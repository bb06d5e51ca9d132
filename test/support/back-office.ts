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
  const run = <T>(action: (tx: Parameters<Parameters<TestApp['db']['$transaction']>[0]>[0]) => Promise<T>) => t.db.$transaction((tx) => action(tx));
  return {
    approve: (id: number, terms = standardTerms) => run((tx) => review.approve(tx, BigInt(id), REVIEWER, terms)),
    decline: (id: number) => run((tx) => review.decline(tx, BigInt(id), REVIEWER)),
    requestInformation: (id: number, comment = 'Send the income statement of the tenant.') =>
      run((tx) => review.requestInformation(tx, BigInt(id), REVIEWER, comment)),
    envelopeReady: (id: number) => run((tx) => review.markEnvelopeReady(tx, BigInt(id))),
    // cpfCnpj as the partner API reads it (the contract makes it nullable).
    sign: (id: number, role: 'document' | 'tenant' | 'co_tenant', cpfCnpj?: string | null, outcome: 'signed' | 'refused' = 'signed') =>
      run((tx) => review.recordSignature(tx, BigInt(id), { role, cpfCnpj: cpfCnpj ?? undefined }, outcome)),
    expire: (id: number) => run((tx) => review.expireProposal(tx, BigInt(id))),
    terminate: (id: number) => run((tx) => review.terminate(tx, BigInt(id))),
    archive: (id: number) => run((tx) => review.archive(tx, BigInt(id))),
  };
}
