/**
 * Who calls the operations API. The Bearer guard has already checked the token and the operation's
 * scope; this reads the credential's kind and person name (the history creator and audit actor) and
 * refuses a credential of the wrong kind, as a second line behind the scope rules.
 */
import { InsufficientScope } from '../../auth/bearer-guard';
import { directorActor, staffActor, type AuditActor } from '../../auth/audit-log';
import type { Queryable } from '../../database/prisma-client';
import type { Actor } from '../../guarantees/history';
import type { OperationContext } from '../../http/operation';
import { staffMember } from './review-service';

export interface Operator {
  kind: 'staff' | 'director';
  name: string;
  /** The company of the token: the agency for a director, `back-office` for staff. */
  companyId: string;
  /** The history creator (staff: their name, `serviceAccount: false`). */
  actor: Actor;
  /** The audit log's actor. */
  audit: AuditActor;
}

export async function operatorOf(db: Queryable, ctx: OperationContext, kind: 'staff' | 'director', scope: string): Promise<Operator> {
  const credential = await db.credential.findUnique({
    where: { id: ctx.principal.credentialId },
    select: { kind: true, personName: true },
  });
  if (!credential || credential.kind !== kind || !credential.personName) throw new InsufficientScope([scope]);
  const name = credential.personName;
  return {
    kind,
    name,
    companyId: ctx.principal.companyId,
    actor: staffMember(name),
    audit: kind === 'staff' ? staffActor(name, 'operations-api', ctx.principal.clientId) : directorActor(name, 'operations-api', ctx.principal.clientId),
  };
}
