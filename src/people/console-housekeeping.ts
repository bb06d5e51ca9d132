/** The console's rows that nothing reads any more: ended sessions, expired challenges, invitations expired a week ago. */
import type { Database } from '../database/prisma-client';

const INVITATIONS_KEPT_DAYS = 7;

export async function purgeConsole(db: Database, now = new Date()): Promise<void> {
  // Sessions past their absolute end; idle ones are refused on read and go at their absolute end.
  await db.consoleSession.deleteMany({ where: { expiresAt: { lt: now } } });
  await db.consoleChallenge.deleteMany({ where: { expiresAt: { lt: now } } });
  await db.consoleInvitation.deleteMany({ where: { expiresAt: { lt: new Date(now.getTime() - INVITATIONS_KEPT_DAYS * 86_400_000) } } });
}
