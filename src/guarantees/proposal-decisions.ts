/** The partner's answer to an approved proposal, on the tenant's behalf: accept or refuse. */
import type { AnyTransaction } from '../database/sql';
import { NotFound } from '../errors';
import { applyChange, type ChangeOutcome } from './guarantee-change';
import { lockGuarantee } from './guarantee-repository';
import type { Actor } from './history';

export async function decideProposal(
  tx: AnyTransaction,
  companyId: string,
  actor: Actor,
  id: bigint,
  decision: 'accept' | 'refuse',
): Promise<ChangeOutcome> {
  const locked = await lockGuarantee(tx, companyId, id);
  if (!locked) throw new NotFound();
  return applyChange(tx, locked, {
    actor,
    event: { type: decision === 'accept' ? 'partner_accepted' : 'partner_refused' },
    historyKind: 'status_changed',
    note: decision === 'accept' ? 'Proposal accepted on behalf of the tenant.' : 'Proposal refused on behalf of the tenant.',
  });
}
