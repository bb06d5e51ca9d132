/** The sign rule of statement entries: credits are positive, debits negative, from the agency's view. */
import type { StatementType } from '../generated/prisma/enums';

export const CREDIT_TYPES: readonly StatementType[] = ['charge_paid', 'revenue_shared', 'transfer_refunded', 'transfer_received'];
export const DEBIT_TYPES: readonly StatementType[] = ['charge_refunded', 'fee', 'transfer_sent'];
export const STATEMENT_TYPES: readonly StatementType[] = [...CREDIT_TYPES, ...DEBIT_TYPES];

export function isStatementType(value: string): value is StatementType {
  return (STATEMENT_TYPES as readonly string[]).includes(value);
}

export function isCredit(type: StatementType): boolean {
  return CREDIT_TYPES.includes(type);
}

/** The signed amount of an entry of `type` whose absolute value is `absoluteCents` (> 0). */
export function signedCents(type: StatementType, absoluteCents: bigint): bigint {
  return isCredit(type) ? absoluteCents : -absoluteCents;
}
