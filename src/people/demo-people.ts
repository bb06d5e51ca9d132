/**
 * Quick start (issue 37): a demo director of the demo agency and a demo reviewer, with a one-time
 * enrolment link each, printed on the console at start-up (never in the logs). A demo person who
 * already registered a passkey keeps it and is told where to sign in.
 */
import { staffActor } from '../auth/audit-log';
import { STAFF_SCOPES } from '../auth/scopes';
import type { Config } from '../config';
import type { Database } from '../database/prisma-client';
import { enrolmentLink, invitePerson, reinvitePerson, type NewPerson } from './people';

const DEMO: Array<Omit<NewPerson, 'actor'> & { label: string }> = [
  { label: 'Demo director (demo-agency)', kind: 'director', companyId: 'demo-agency', companyName: 'Demo Imobiliária', name: 'Diretora Demo' },
  { label: 'Demo reviewer (staff)', kind: 'staff', name: 'Revisor Demo', scopes: [...STAFF_SCOPES] },
];

export async function ensureDemoPeople(db: Database, config: Config, origin: string): Promise<void> {
  const actor = staffActor('quick-start', 'service');
  const consoleUrl = `${origin}${config.CONSOLE_BASE_PATH}/`;
  const lines = ['', '================ Console (passkeys) ================', `Console: ${consoleUrl}`];
  for (const demo of DEMO) {
    const existing = await db.consolePerson.findFirst({
      where: { kind: demo.kind, name: demo.name, ...(demo.companyId ? { companyId: demo.companyId } : {}) },
      include: { _count: { select: { passkeys: true } } },
    });
    if (existing && existing._count.passkeys > 0) {
      lines.push(`${demo.label}: already enrolled; sign in at ${consoleUrl}`);
      continue;
    }
    const invitation = existing
      ? await reinvitePerson(db, config.ENVIRONMENT, existing.id, actor, config.CONSOLE_INVITATION_HOURS)
      : await invitePerson(db, config.ENVIRONMENT, { ...demo, actor }, config.CONSOLE_INVITATION_HOURS);
    lines.push(`${demo.label}, enrolment link (single use, 24 h):`, `  ${enrolmentLink(origin, config.CONSOLE_BASE_PATH, invitation.token)}`);
  }
  lines.push(
    'A passkey is bound to the host name: open the links with localhost, not 127.0.0.1.',
    '====================================================',
    '',
  );
  console.log(lines.join('\n'));
}
