/**
 * The per-process cache of token principals (src/auth/principal-cache.ts) and its revocation
 * listener: a token is read from the database once, then served from memory; the cache is not
 * trusted while the listening connection is down, and starts empty when it listens again, so a
 * revocation that happened meanwhile is never missed.
 */
import { PrincipalCache } from '../../src/auth/principal-cache';
import type { StoredToken } from '../../src/auth/principal';
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { eventually } from '../support/wait-for';

const world = useTestApp();

const listenerBackends = () =>
  world.db.$queryRaw<
    Array<{ pid: number }>
  >`SELECT pid FROM pg_stat_activity WHERE application_name = 'revocation-listener' AND datname = current_database()`;

describe('When a partner calls the API again with the same token', () => {
  test("then the token is served from memory: a row deleted behind the triggers' back goes unnoticed, which is why every revocation notifies", async () => {
    const agency = await world.newAgency();
    const partner = asPartner(world, agency);
    const { id } = await partner.newGuarantee();
    expect((await partner.get(id)).status).toBe(200);
    // With session_replication_role = replica no trigger fires: no NOTIFY, so no eviction.
    await world.db.$transaction(async (tx) => {
      await tx.$executeRaw`SET LOCAL session_replication_role = replica`;
      await tx.accessToken.deleteMany({ where: { credentialId: agency.credentialId } });
    });
    expect((await partner.get(id)).status).toBe(200);
    // A revocation's trigger evicts the principal, and a hit is served only once this process has
    // caught up with the notifications: the very next request reads the token, and finds none.
    await world.db.credential.update({ where: { id: agency.credentialId }, data: { revokedAt: new Date() } });
    expect((await partner.get(id)).status).toBe(401);
  });
});

describe('When the listening connection is lost', () => {
  test('then the cache is distrusted at once, a revocation made meanwhile is honoured, and the cache is trusted again, empty, once it listens', async () => {
    const agency = await world.newAgency();
    const partner = asPartner(world, agency);
    const { id } = await partner.newGuarantee();
    expect((await partner.get(id)).status).toBe(200);
    const [listener] = await listenerBackends();
    expect(listener).toBeDefined();

    await world.db.$queryRaw`SELECT pg_terminate_backend(${listener!.pid}::int)`;
    expect(await eventually(() => !world.principals.isTrusted)).toBe(true);
    expect(world.principals.size).toBe(0);
    // Revoked while the listener may be down: its notification may never arrive.
    await world.db.credential.update({ where: { id: agency.credentialId }, data: { revokedAt: new Date() } });
    expect((await partner.get(id)).status).toBe(401);

    expect(await eventually(() => world.principals.isTrusted)).toBe(true);
    const [again] = await listenerBackends();
    expect(again!.pid).not.toBe(listener!.pid);
    expect((await partner.get(id)).status).toBe(401);
  });
});

describe('When a lookup read its token before a revocation arrived', () => {
  const token = (credentialId: string): StoredToken => ({
    companyId: 'acme',
    credentialId,
    clientId: 'sbx_ci_x',
    displayName: 'ERP',
    scopes: ['ri:rental-insurances:read'],
    kind: 'partner',
    personName: null,
    expiresAt: new Date(Date.now() + 60_000),
    revoked: false,
  });

  /** A listener whose barrier passes at once (the real one is a round trip on its connection). */
  const caughtUp = () => Promise.resolve();

  test('then what it read is not kept, and nothing is served while the cache is distrusted', async () => {
    const cache = new PrincipalCache(10);
    cache.trust(caughtUp);
    const epoch = cache.epoch;
    cache.evictCredential('c-1'); // the revocation's notification, between the read and the store
    cache.set('hash-1', token('c-1'), epoch);
    expect(await cache.get('hash-1')).toBeUndefined();

    cache.set('hash-2', token('c-2'), cache.epoch);
    expect((await cache.get('hash-2'))?.credentialId).toBe('c-2');
    cache.distrust();
    expect(await cache.get('hash-2')).toBeUndefined();
    cache.set('hash-2', token('c-2'), cache.epoch);
    expect(await cache.get('hash-2')).toBeUndefined();
  });

  test('then the cache holds at most its size', () => {
    const cache = new PrincipalCache(3);
    cache.trust(caughtUp);
    for (let index = 0; index < 10; index += 1) cache.set(`hash-${index}`, token(`c-${index}`), cache.epoch);
    expect(cache.size).toBe(3);
  });
});
