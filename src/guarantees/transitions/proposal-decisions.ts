/** The partner's answer to an approved proposal, on the tenant's behalf: accept or refuse. */
import type { UnitOfWork } from '../../database/unit-of-work';
import { rentalInsuranceNotFound } from '../../errors';
import { applyChange, type ChangeOutcome } from './guarantee-change';
import { lockGuarantee } from '../guarantee-repository';
import type { Actor } from '../../auth/actors';
import type { ContractIssuer } from '../documents/contract-issuer';

export async function decideProposal(
  unit: UnitOfWork,
  companyId: string,
  actor: Actor,
  id: bigint,
  decision: 'accept' | 'refuse',
  contracts?: ContractIssuer,
): Promise<ChangeOutcome> {
  const locked = await lockGuarantee(unit.db, companyId, id);
  if (!locked) throw rentalInsuranceNotFound();
  return applyChange(unit, locked, {
    actor,
    event: { type: decision === 'accept' ? 'partner_accepted' : 'partner_refused' },
    historyKind: 'status_changed',
    note: decision === 'accept' ? 'Proposal accepted on behalf of the tenant.' : 'Proposal refused on behalf of the tenant.',
    contracts,
  });
}
