/**
 * The one status machine of a rental guarantee. Every write, by the partner, a reviewer or the
 * service itself, asks it which status follows, which effects to report and what happens to the
 * signature records. Anything it does not allow is `409 invalid_state`.
 */
import { Conflict } from '../../errors';
import type { RentalInsuranceStatus } from '../../generated/prisma/enums';

export type Status = RentalInsuranceStatus;
export type Effect = 'review_started' | 'signature_requested' | 'contract_invalidated' | 'contract_reissued';
/** What happens to the signature records of the contract. */
export type SignatureChange = 'keep' | 'create' | 'reset' | 'discard';

export type GuaranteeEvent =
  | { type: 'partner_changed_data'; monetary: boolean; contractual: boolean }
  | { type: 'partner_accepted' }
  | { type: 'partner_refused' }
  | { type: 'reviewer_approved' }
  | { type: 'reviewer_declined' }
  | { type: 'reviewer_requested_information' }
  | { type: 'proposal_expired' }
  | { type: 'signatures_updated' }
  | { type: 'contract_signed' }
  | { type: 'terminated' }
  | { type: 'archived' };

/** The events a partner can cause through the partner API; used to prove partners never review. */
export const PARTNER_EVENT_TYPES = ['partner_changed_data', 'partner_accepted', 'partner_refused'] as const;

export interface Transition {
  to: Status;
  effects: Effect[];
  signatures: SignatureChange;
}

export const INITIAL_STATUS: Status = 'under_review';
export const CREATION_EFFECTS: Effect[] = ['review_started'];
export const CLOSED_STATUSES: readonly Status[] = ['declined', 'expired', 'declined_by_tenant', 'terminated', 'archived'];

const stay = (status: Status): Transition => ({ to: status, effects: [], signatures: 'keep' });
const move = (to: Status, effects: Effect[] = [], signatures: SignatureChange = 'keep'): Transition => ({ to, effects, signatures });

export function transition(from: Status, event: GuaranteeEvent): Transition {
  const next = decide(from, event);
  if (!next) {
    throw new Conflict('invalid_state', `This operation is not allowed while the rental insurance is ${from}.`);
  }
  return next;
}

function decide(from: Status, event: GuaranteeEvent): Transition | undefined {
  switch (event.type) {
    case 'partner_changed_data':
      return partnerChange(from, event.monetary, event.contractual);
    case 'partner_accepted':
      return from === 'approved' ? move('accepted', ['signature_requested'], 'create') : undefined;
    case 'partner_refused':
      return from === 'approved' ? move('declined_by_tenant') : undefined;
    case 'reviewer_approved':
      return from === 'under_review' ? move('approved') : undefined;
    case 'reviewer_declined':
      return from === 'under_review' ? move('declined') : undefined;
    case 'reviewer_requested_information':
      return from === 'under_review' ? move('information_requested') : undefined;
    case 'proposal_expired':
      return from === 'approved' ? move('expired') : undefined;
    case 'signatures_updated':
      return from === 'accepted' ? stay(from) : undefined;
    case 'contract_signed':
      return from === 'accepted' ? move('active') : undefined;
    case 'terminated':
      return from === 'active' ? move('terminated') : undefined;
    case 'archived':
      return from === 'terminated' ? move('archived') : undefined;
  }
}

function partnerChange(from: Status, monetary: boolean, contractual: boolean): Transition | undefined {
  switch (from) {
    case 'under_review':
    case 'active':
      return stay(from);
    case 'information_requested':
      return monetary || contractual ? move('under_review', ['review_started']) : stay(from);
    case 'approved':
      return monetary ? move('under_review', ['review_started']) : stay(from);
    case 'accepted':
      if (monetary) return move('under_review', ['review_started', 'contract_invalidated'], 'discard');
      return contractual ? move('accepted', ['contract_reissued'], 'reset') : stay(from);
    default:
      return undefined; // closed
  }
}
