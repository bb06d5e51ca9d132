/** The sandbox reviewer's documented rules, as pure functions. */
import { Prisma } from '../../src/generated/prisma/client';
import { reviewDecision, sandboxApprovalTerms, tenantRefusesToSign } from '../../src/sandbox/magic-values';

const money = (value: string) => new Prisma.Decimal(value);

describe('The review decision follows the cents of rentalAmount', () => {
  test.each([
    ['3500.01', false, 'decline'],
    ['0.01', false, 'decline'],
    ['3500.02', false, 'request_information'],
    ['3500.02', true, 'approve'],
    ['3500.00', false, 'approve'],
    ['3500.03', false, 'approve'],
    ['3500.04', false, 'approve'],
    ['3500.10', false, 'approve'],
    ['3500.99', false, 'approve'],
    ['3500.01', true, 'decline'],
  ] as const)('When rentalAmount is %s (information requested before: %s), then the sandbox decides %s', (amount, before, expected) => {
    expect(reviewDecision(money(amount), before)).toBe(expected);
  });

  test('When rentalAmount ends in .03, then the tenant refuses to sign; otherwise the tenant signs', () => {
    expect(tenantRefusesToSign(money('3500.03'))).toBe(true);
    expect(tenantRefusesToSign(money('3500.30'))).toBe(false);
    expect(tenantRefusesToSign(money('3500.00'))).toBe(false);
  });
});

describe('The sandbox approval terms', () => {
  test('When the monthly total is 4560.35, then the installment is 10% rounded half up, coverage 30 months of the total and 30 rents', () => {
    const terms = sandboxApprovalTerms(
      { rentalAmount: money('3500.00'), condoFee: money('850.00'), propertyTax: money('210.35'), otherFees: null },
      '2026-11-22',
    );
    expect(terms).toEqual({
      installmentAmountCents: 45604n, // 456.035 -> 456.04
      coverageLimitCents: 13681050n, // 30 × 4560.35
      rentCoverageLimitCents: 10500000n, // 30 × 3500.00
      startBillingDate: '2026-12-01',
      terminationDate: '2029-06-01',
    });
  });

  test('When only the rent is known, then fees count as zero and a half cent rounds up', () => {
    const terms = sandboxApprovalTerms({ rentalAmount: money('1000.05'), condoFee: null, propertyTax: null, otherFees: money('0.00') }, '2027-01-31');
    expect(terms.installmentAmountCents).toBe(10001n); // 100.005 -> 100.01
    expect(terms.coverageLimitCents).toBe(3000150n);
    expect(terms.rentCoverageLimitCents).toBe(3000150n);
    expect([terms.startBillingDate, terms.terminationDate]).toEqual(['2027-02-01', '2029-08-01']);
  });

  test('When the review happens in December, then billing starts on 1 January of the next year', () => {
    const terms = sandboxApprovalTerms({ rentalAmount: money('2000.00'), condoFee: null, propertyTax: null, otherFees: null }, '2026-12-31');
    expect([terms.startBillingDate, terms.terminationDate]).toEqual(['2027-01-01', '2029-07-01']);
  });
});
