/**
 * When every pooled connection is busy for longer than DATABASE_POOL_WAIT_MS, a request is
 * answered 503 with Retry-After (never a 500, never a hang), the token endpoint's too, nothing is
 * stored, and the same requests succeed once connections are free again.
 *
 * The wait is 1.5 s rather than the shortest allowed: the world's setup opens the pool's first
 * connections through it, and a loaded CI machine took longer than 300 ms to open one.
 */
import { guaranteeBody, newKey } from '../support/factories';
import { expectErrorBody } from '../support/error-body';
import { ANONYMOUS, asPartner } from '../support/partner-api';
import { countGuarantees, countIdempotencyRecords } from '../support/stored-state';
import { useTestApp } from '../support/test-app';

const world = useTestApp({ DATABASE_POOL_MAX: '2', DATABASE_POOL_WAIT_MS: '1500' }, { agencies: 1 });
const partner = asPartner(world);
const requestToken = () =>
  asPartner(world, ANONYMOUS).tokenRequest().auth(world.agency.clientId, world.agency.clientSecret).send({ grant_type: 'client_credentials' });

describe('When every database connection of the process is busy', () => {
  test('then reads and writes get 503 with Retry-After, store nothing, and work again once a connection is free', async () => {
    const existing = await partner.create(guaranteeBody());
    expect(existing.status).toBe(201);
    const guaranteesBefore = await countGuarantees(world, world.agency);
    const recordsBefore = await countIdempotencyRecords(world, world.agency);
    const failuresBefore = await world.db.tokenRateLimit.count();

    // Two transactions of the test hold both connections of the pool until released.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let started = 0;
    const holders: Promise<void>[] = [];
    const allStarted = new Promise<void>((resolve) => {
      const hold = () =>
        world.db.$transaction(
          async (tx) => {
            await tx.$queryRaw`SELECT 1`;
            if (++started === 2) resolve();
            await released;
          },
          { timeout: 20_000 },
        );
      holders.push(hold(), hold());
    });
    await allStarted;
    const key = newKey();
    const body = guaranteeBody();
    try {
      const read = await partner.get(existing.body.id);
      expectErrorBody(read, 503, 'service_unavailable');
      expect(read.headers['retry-after']).toBe('1');
      const write = await partner.create(body, { key });
      expectErrorBody(write, 503, 'service_unavailable');
      expect(write.headers['retry-after']).toBe('1');
      const token = await requestToken();
      expect(token.status).toBe(503);
      expect(token.headers['retry-after']).toBe('1');
      expect(token.headers['cache-control']).toBe('no-store');
      expect(token.body).toEqual({
        error: 'temporarily_unavailable',
        error_description: 'The service is temporarily unavailable; retry after 1 second.',
      });
    } finally {
      release();
      await Promise.all(holders);
    }

    expect(await countGuarantees(world, world.agency)).toBe(guaranteesBefore);
    expect(await countIdempotencyRecords(world, world.agency)).toBe(recordsBefore);
    expect(await world.db.tokenRateLimit.count()).toBe(failuresBefore);
    expect((await partner.get(existing.body.id)).status).toBe(200);
    const retried = await partner.create(body, { key });
    expect(retried.status).toBe(201);
    expect(retried.headers['idempotent-replay']).toBe('false');
    expect(await countGuarantees(world, world.agency)).toBe(guaranteesBefore + 1);
    const tokenAgain = await requestToken();
    expect(tokenAgain.status).toBe(200);
  });
});
