/**
 * Who may read an event (issue 23 item 2): an event carries the resource it describes, so it
 * reaches a credential only when that credential may read the resource, on every channel: the feed
 * (`GET /v1/events`, with ri:events:read), an endpoint's subscription and every delivery to it
 * (with ri:webhooks:manage). Statement events need ri:financial:read; guarantee events need
 * ri:rental-insurances:read. Declared in openapi/partner.yaml (*Webhooks*).
 */
import type { Scope } from '../auth/scopes';
import { EVENT_TYPES, type EventType } from './event-types';

export const READ_SCOPE_OF_TYPE: Readonly<Record<EventType, Scope>> = {
  'rental_insurance.status_changed': 'ri:rental-insurances:read',
  'rental_insurance.signature_changed': 'ri:rental-insurances:read',
  'rental_insurance.comment_added': 'ri:rental-insurances:read',
  'rental_insurance.contract_reissued': 'ri:rental-insurances:read',
  'rental_insurance.documents_attached': 'ri:rental-insurances:read',
  'statement_entry.created': 'ri:financial:read',
};

/** The event types these scopes may read. */
export function readableTypes(scopes: readonly string[]): EventType[] {
  return EVENT_TYPES.filter((type) => scopes.includes(READ_SCOPE_OF_TYPE[type]));
}

/** One problem per event type these scopes may not read (`eventTypes[1]: ... needs ...`), or []. */
export function unreadableTypes(types: readonly string[], scopes: readonly string[]): string[] {
  return types.flatMap((type, index) => {
    const needed = READ_SCOPE_OF_TYPE[type as EventType];
    return needed && !scopes.includes(needed) ? [`eventTypes[${index}]: ${type} needs the scope ${needed}, which this token does not hold`] : [];
  });
}
