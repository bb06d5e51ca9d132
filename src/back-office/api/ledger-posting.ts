/**
 * Staff post statement entries to an agency's ledger (issue #6 item 3), shared by the operations
 * API and the admin command-line tool (no HTTP here). The amount is given as an absolute value; its
 * sign comes from the type (src/financial/ledger-rules.ts). Every posting is audited.
 */
import type { StatementType } from '../../generated/prisma/client';
import type { UnitOfWork } from '../../database/unit-of-work';
import { recordAudit, type AuditActor } from '../../auth/audit-log';
import { BACK_OFFICE_COMPANY_ID } from '../../auth/credentials';
import { ValidationFailed } from '../../errors';
import { postStatementEntry, type StatementEntryRow } from '../../financial/ledger-service';
import { toCents } from '../../validation';

export interface LedgerPosting {
  companyId: string;
  /** Calendar day (America/Sao_Paulo), YYYY-MM-DD. */
  date: string;
  type: StatementType;
  /** Absolute amount in BRL, > 0, at most 2 decimals. */
  amount: number;
  description?: string | null;
}

export async function postLedgerEntry(unit: UnitOfWork, posting: LedgerPosting, actor: AuditActor): Promise<StatementEntryRow> {
  const amountCents = typeof posting.amount === 'number' ? toCents(posting.amount) : null;
  if (amountCents === null || amountCents <= 0n) {
    throw new ValidationFailed(['amount: must be an absolute amount greater than 0 with at most 2 decimal places (the sign comes from type)']);
  }
  const description = posting.description?.trim() || null;
  if (description !== null && description.length > 200) throw new ValidationFailed(['description: at most 200 characters']);
  const company =
    posting.companyId === BACK_OFFICE_COMPANY_ID
      ? null
      : await unit.db.company.findUnique({ where: { id: posting.companyId }, select: { id: true } });
  if (!company) throw new ValidationFailed([`companyId: no agency ${JSON.stringify(posting.companyId)}`]);
  const entry = await postStatementEntry(unit, { companyId: posting.companyId, date: posting.date, description, type: posting.type, amountCents });
  await recordAudit(unit.db, {
    actor,
    action: 'statement_entry.posted',
    companyId: posting.companyId,
    details: { entryId: entry.id.toString(), date: posting.date, type: posting.type, amount: entry.amount.toFixed(2), description },
  });
  return entry;
}
