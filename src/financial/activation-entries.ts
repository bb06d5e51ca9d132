/**
 * The money a guarantee moves when it becomes active (rules written in the contract's
 * "Financial records" section):
 *   - its setup fee, when set and above zero, is charged to the agency: a `fee` entry (debit);
 *   - the agency's revenue share, 10% of the monthly installment, is credited: a `revenue_shared` entry.
 * Both are dated the activation day (America/Sao_Paulo) and posted in the activation's transaction.
 * `at`: when the activation happened, when not now (a time-travelled sandbox guarantee's own time).
 */
import { todayInSaoPaulo } from '../database/column-values';
import type { UnitOfWork } from '../database/unit-of-work';
import { postStatementEntry } from './ledger-service';
import { decimalTextToCents } from './money';

export const REVENUE_SHARE_PERCENT = 10n;

/** What the entries need of the guarantee (its row: the ledger knows no more of guarantees). */
export interface ActivatedGuarantee {
  id: bigint;
  companyId: string;
  setupFee: { toFixed(digits: number): string } | null;
  installmentAmount: { toFixed(digits: number): string } | null;
}

export async function postActivationEntries(unit: UnitOfWork, guarantee: ActivatedGuarantee, at?: Date): Promise<void> {
  const date = todayInSaoPaulo(at ?? new Date());
  const setupFeeCents = centsOf(guarantee.setupFee);
  if (setupFeeCents > 0n) {
    await postStatementEntry(unit, {
      companyId: guarantee.companyId,
      date,
      description: `Setup fee of rental insurance ${guarantee.id}`,
      type: 'fee',
      amountCents: setupFeeCents,
      rentalInsuranceId: guarantee.id,
      ...(at ? { at } : {}),
    });
  }
  // Rounded half up to the cent.
  const shareCents = (centsOf(guarantee.installmentAmount) * REVENUE_SHARE_PERCENT + 50n) / 100n;
  if (shareCents > 0n) {
    await postStatementEntry(unit, {
      companyId: guarantee.companyId,
      date,
      description: `Revenue share of rental insurance ${guarantee.id}`,
      type: 'revenue_shared',
      amountCents: shareCents,
      rentalInsuranceId: guarantee.id,
      ...(at ? { at } : {}),
    });
  }
}

function centsOf(value: { toFixed(digits: number): string } | null): bigint {
  return value === null ? 0n : decimalTextToCents(value.toFixed(2));
}
