/**
 * When every pooled connection is busy for longer than DATABASE_POOL_WAIT_MS, a request is
 * answered 503 with Retry-After (never a 500, never a hang), nothing is stored, and the same
 * requests succeed once connections are free again.
 */
import { poolOf } from '../../src/database/prisma-client';
import { guaranteeBody, newKey } from '../support/factories';
import { expectErrorBody } from '../support/error-body';
import { startTestApp, type Agency, type TestApp } from '../support/test-app';
import { countGuarantees, countIdempotencyRecords, getGuarantee, postGuarantee } from './guarantee-http';

let t: TestApp;
let agency: Agency;
beforeAll(async () => {
  t = await startTestApp({ DATABASE_POOL_MAX: '2', DATABASE_POOL_WAIT_MS: '300' });
  agency = await t.newAgency();
});
afterAll(() => t.close());

describe('When every database connection of the process is busy', () => {
  test('then reads and writes get 503 with Retry-After, store nothing, and work again once a connection is free', async () => {
    const existing = await postGuarantee(t, agency, guaranteeBody());
    expect(existing.status).toBe(201);
    const guaranteesBefore = await countGuarantees(t, agency);
    const recordsBefore = await countIdempotencyRecords(t, agency);

    const pool = poolOf(t.db)!;
    const held = await Promise.all([pool.connect(), pool.connect()]);
    const key = newKey();
    const body = guaranteeBody();
    try {
      const read = await getGuarantee(t, agency, existing.body.id);
      expectErrorBody(read, 503, 'service_unavailable');
      expect(read.headers['retry-after']).toBe('1');
      const write = await postGuarantee(t, agency, body, key);
      expectErrorBody(write, 503, 'service_unavailable');
      expect(write.headers['retry-after']).toBe('1');
    } finally {
      for (const client of held) client.release();
    }

    expect(await countGuarantees(t, agency)).toBe(guaranteesBefore);
    expect(await countIdempotencyRecords(t, agency)).toBe(recordsBefore);
    expect((await getGuarantee(t, agency, existing.body.id)).status).toBe(200);
    const retried = await postGuarantee(t, agency, body, key);
    expect(retried.status).toBe(201);
    expect(retried.headers['idempotent-replay']).toBe('false');
    expect(await countGuarantees(t, agency)).toBe(guaranteesBefore + 1);
  });
});
