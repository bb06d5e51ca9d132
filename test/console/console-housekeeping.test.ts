/**
 * Issue 37: housekeeping removes what nothing reads any more: ended sessions, expired challenges,
 * invitations expired a week ago, and tokens-per-hour counts older than 48 hours; live rows stay.
 */
import { randomUUID } from 'node:crypto';
import { staffActor } from '../../src/auth/audit-log';
import { startSession } from '../../src/auth/session-store';
import { invitePerson } from '../../src/people/people';
import { purgeExpired } from '../../src/scheduler/housekeeping';
import { useTestApp } from '../support/test-app';

const world = useTestApp({}, { agencies: 1 });

test('When housekeeping runs, then ended sessions, spent challenges, old invitations and old token counts go, and live ones stay', async () => {
  const { db } = world;
  const { person } = await invitePerson(
    db,
    world.config.ENVIRONMENT,
    { kind: 'director', companyId: 'agency-clean', name: 'Lia Limpa', actor: staffActor('test', 'cli') },
    24,
  );
  const live = await startSession(db, world.config.ENVIRONMENT, person.id, { idleMinutes: 30, maxHours: 12 });
  const ended = await startSession(db, world.config.ENVIRONMENT, person.id, { idleMinutes: 30, maxHours: 12 });
  await db.consoleSession.update({ where: { tokenHash: ended.row.tokenHash }, data: { expiresAt: new Date(Date.now() - 1000) } });
  await db.consoleChallenge.createMany({
    data: [
      { id: randomUUID(), challenge: 'old', purpose: 'sign_in', expiresAt: new Date(Date.now() - 1000) },
      { id: randomUUID(), challenge: 'new', purpose: 'sign_in', expiresAt: new Date(Date.now() + 60_000) },
    ],
  });
  await db.consoleInvitation.updateMany({ where: { personId: person.id }, data: { expiresAt: new Date(Date.now() - 8 * 86_400_000) } });
  const secretId = (await db.credentialSecret.findFirstOrThrow({ where: { credentialId: world.agency.credentialId } })).id;
  // The agency's token (this hour) is counted already; a count of three days ago is added.
  await db.secretTokenHour.create({ data: { secretId, hour: new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - 72 * 3_600_000), count: 5 } });

  await purgeExpired(db, 24);

  expect((await db.consoleSession.findMany({ where: { personId: person.id } })).map((row) => row.tokenHash)).toEqual([live.row.tokenHash]);
  expect((await db.consoleChallenge.findMany()).map((row) => row.challenge)).toEqual(['new']);
  expect(await db.consoleInvitation.count({ where: { personId: person.id } })).toBe(0);
  expect((await db.secretTokenHour.findMany({ where: { secretId } })).map((row) => row.count)).toEqual([1]);
});
