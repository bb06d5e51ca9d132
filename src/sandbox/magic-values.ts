/**
 * The sandbox reviewer's documented rules (partner document, "Testing in the sandbox"): the cents
 * of `rentalAmount` choose what happens, and approved proposals get terms from a fixed formula.
 * Pure functions; the jobs in sandbox-jobs.ts apply them.
 */
import type { ApprovalTerms } from '../guarantees/transitions/review-actions';

/** Cents of `rentalAmount` with a documented meaning in the sandbox. Any other value: approved and signed. */
export const MAGIC_CENTS = {
  declined: 1,
  informationRequested: 2,
  tenantRefusesToSign: 3,
  proposalExpires: 4,
} as const;

export type SandboxDecision = 'approve' | 'decline' | 'request_information';

/** A NUMERIC(…,2) column value (Prisma Decimal) or null. */
export interface DecimalLike {
  toFixed(digits: number): string;
}

export function toCentsOf(value: DecimalLike | null): bigint {
  return value === null ? 0n : BigInt(value.toFixed(2).replace('.', ''));
}

/** The cents part of an amount: 3500.02 -> 2. */
export function centsPart(value: DecimalLike): number {
  return Number(value.toFixed(2).slice(-2));
}

/**
 * The review decision. `.02` requests information only on the guarantee's first review, so that a
 * partner who answers by changing the data (any field other than `externalId`) sees it approved.
 */
export function reviewDecision(rentalAmount: DecimalLike, informationRequestedBefore: boolean): SandboxDecision {
  switch (centsPart(rentalAmount)) {
    case MAGIC_CENTS.declined:
      return 'decline';
    case MAGIC_CENTS.informationRequested:
      return informationRequestedBefore ? 'approve' : 'request_information';
    default:
      return 'approve';
  }
}

export function tenantRefusesToSign(rentalAmount: DecimalLike): boolean {
  return centsPart(rentalAmount) === MAGIC_CENTS.tenantRefusesToSign;
}

export interface MonthlyAmounts {
  rentalAmount: DecimalLike;
  condoFee: DecimalLike | null;
  propertyTax: DecimalLike | null;
  otherFees: DecimalLike | null;
}

export const INSTALLMENT_PERCENT = 10n;
export const COVERAGE_MONTHS = 30n;
export const GUARANTEE_MONTHS = 30;

/**
 * The sandbox's approval terms, with monthly total = rentalAmount + condoFee + propertyTax +
 * otherFees (null counts as 0; setupFee is a one-off fee and not part of it):
 *   installmentAmount = 10% of the monthly total, rounded half up to the cent
 *   coverageLimit     = 30 × the monthly total (remainingCoverageAmount starts equal to it)
 *   rentCoverageLimit = 30 × rentalAmount (rentRemainingCoverageAmount starts equal to it)
 *   startBillingDate  = the first day of the month after the review (America/Sao_Paulo)
 *   terminationDate   = startBillingDate + 30 months (the day the guarantee terminates)
 */
export function sandboxApprovalTerms(amounts: MonthlyAmounts, reviewDay: string): ApprovalTerms {
  const rent = toCentsOf(amounts.rentalAmount);
  const monthly = rent + toCentsOf(amounts.condoFee) + toCentsOf(amounts.propertyTax) + toCentsOf(amounts.otherFees);
  const startBillingDate = addMonths(firstOfMonth(reviewDay), 1);
  return {
    installmentAmountCents: (monthly * INSTALLMENT_PERCENT + 50n) / 100n,
    coverageLimitCents: monthly * COVERAGE_MONTHS,
    rentCoverageLimitCents: rent * COVERAGE_MONTHS,
    startBillingDate,
    terminationDate: addMonths(startBillingDate, GUARANTEE_MONTHS),
  };
}

const firstOfMonth = (day: string) => `${day.slice(0, 7)}-01`;

/** `YYYY-MM-01` plus whole months. */
function addMonths(firstDay: string, months: number): string {
  const index = Number(firstDay.slice(0, 4)) * 12 + Number(firstDay.slice(5, 7)) - 1 + months;
  return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}-01`;
}
