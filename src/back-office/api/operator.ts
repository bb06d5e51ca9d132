/**
 * Who calls the back-office API. The pipeline has already checked the token and the operation's
 * scope; this refuses a credential of the wrong kind, as a second line behind the scope rules, and
 * names the person (the history creator and the audit actor).
 */
import { directorActor, staffActor, type AuditActor } from '../../auth/audit-log';
import { InsufficientScope, type Principal } from '../../auth/principal';
import type { Actor } from '../../auth/actors';
import { staffMember } from '../../guarantees/transitions/review-service';

export interface Operator {
  kind: 'staff' | 'director';
  name: string;
  /** The company of the token: the agency for a director, `back-office` for staff. */
  companyId: string;
  clientId: string;
  /** The history creator (staff: their name, `serviceAccount: false`). */
  actor: Actor;
  /** The audit log's actor. */
  audit: AuditActor;
}

export function operatorOf(principal: Principal, kind: 'staff' | 'director', scope: string): Operator {
  if (principal.kind !== kind || !principal.personName) throw new InsufficientScope([scope]);
  const name = principal.personName;
  return {
    kind,
    name,
    companyId: principal.companyId,
    clientId: principal.clientId,
    actor: staffMember(name),
    audit: (kind === 'staff' ? staffActor : directorActor)(name, principal.session ? 'console' : 'back-office-api', principal.clientId),
  };
}
