/** Idempotency-Key under concurrency: one key at the same moment, or held by a write still executing elsewhere. */
import { claimKey } from '../../src/http/idempotency-store';
import { guaranteeBody, newKey } from '../support/factories';
import { expectErrorBody } from '../support/error-body';
import { asPartner } from '../support/partner-api';
import { countGuarantees } from '../support/stored-state';
import { useTestApp } from '../support/test-app';

const world = useTestApp();

describe('When the same key arrives several times at the same moment', () => {
  test('then exactly one guarantee is created; the others get 409 idempotency_key_in_use (Retry-After: 1) or the replay', async () => {
    const own = await world.newAgency();
    const partner = asPartner(world, own);
    const key = newKey();
    const body = guaranteeBody();
    const responses = await Promise.all(Array.from({ length: 5 }, () => partner.create(body, { key })));

    expect(await countGuarantees(world, own)).toBe(1);
    const firstExecutions = responses.filter((response) => response.status === 201 && response.headers['idempotent-replay'] === 'false');
    expect(firstExecutions).toHaveLength(1);
    const winner = firstExecutions[0]!;
    for (const response of responses) {
      if (response === winner) continue;
      if (response.status === 201) {
        expect(response.headers['idempotent-replay']).toBe('true');
        expect(response.text).toBe(winner.text);
      } else {
        expectErrorBody(response, 409, 'idempotency_key_in_use');
        expect(response.headers['retry-after']).toBe('1');
      }
    }

    // Retrying after the first finished gets the replay.
    const retry = await partner.create(body, { key });
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replay']).toBe('true');
    expect(retry.text).toBe(winner.text);
  });

  test('then while the key is held by a request still executing elsewhere, a retry is 409 idempotency_key_in_use and applies nothing', async () => {
    const own = await world.newAgency();
    const partner = asPartner(world, own);
    const key = newKey();
    // Hold the key's lock the way an executing request (in any service process) holds it.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = world.db.$transaction(
      async (tx) => {
        expect((await claimKey(tx, own.companyId, key, 24)).locked).toBe(true);
        locked();
        await released;
      },
      { timeout: 20_000 },
    );
    await Promise.race([isLocked, holder]);
    try {
      const response = await partner.create(guaranteeBody(), { key });
      expectErrorBody(response, 409, 'idempotency_key_in_use');
      expect(response.headers['retry-after']).toBe('1');
      expect(await countGuarantees(world, own)).toBe(0);
    } finally {
      release();
      await holder;
    }
    const afterRelease = await partner.create(guaranteeBody(), { key });
    expect(afterRelease.status).toBe(201);
    expect(afterRelease.headers['idempotent-replay']).toBe('false');
  });

  test('then a write whose key gets a record from a write that did not share its lock (an older version beside it) is 409 and applies nothing', async () => {
    const own = await world.newAgency();
    const key = newKey();
    // The other write's transaction: it stores its record for the key and commits when told to.
    let inserted!: () => void;
    let commit!: () => void;
    const recordInserted = new Promise<void>((resolve) => (inserted = resolve));
    const commitNow = new Promise<void>((resolve) => (commit = resolve));
    const other = world.db.$transaction(
      async (tx) => {
        await tx.$executeRaw`INSERT INTO idempotency_records (company_id, key, fingerprint, response_status, response_headers, response_body)
          VALUES (${own.companyId}, ${key}, 'other-request', 201, '{}', NULL)`;
        inserted();
        await commitNow;
      },
      { timeout: 20_000 },
    );
    await Promise.race([recordInserted, other]);
    const pending = asPartner(world, own)
      .create(guaranteeBody(), { key })
      .then((response) => response);
    try {
      // The write runs up to its own record, which waits on the other one's.
      for (let waited = 0; ; waited += 50) {
        const blocked = await world.db.$queryRaw<Array<{ n: number }>>`
          SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO idempotency_records%'`;
        if (blocked[0]!.n > 0) break;
        if (waited > 10_000) throw new Error('the write never reached its record');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      commit();
      await other;
    }
    const response = await pending;
    expectErrorBody(response, 409, 'idempotency_key_in_use');
    expect(response.headers['retry-after']).toBe('1');
    expect(await countGuarantees(world, own)).toBe(0);
    // The committed record governs the key from now on.
    expectErrorBody(await asPartner(world, own).create(guaranteeBody(), { key }), 400, 'idempotency_key_reused');
  });

  test('then concurrent patches with one key change the guarantee once (version 2)', async () => {
    const own = await world.newAgency();
    const partner = asPartner(world, own);
    const guarantee = await partner.newGuarantee();
    const key = newKey();
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => partner.patch(guarantee.id, { rentalAmount: 4100 }, { key, ifMatch: 'W/"1"' })),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.every((status) => status === 200 || status === 409)).toBe(true);
    expect(responses.filter((response) => response.status === 200 && response.headers['idempotent-replay'] === 'false')).toHaveLength(1);
    for (const response of responses.filter((item) => item.status === 409)) {
      expectErrorBody(response, 409, 'idempotency_key_in_use');
      expect(response.headers['retry-after']).toBe('1');
    }
    const row = await world.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(guarantee.id) } });
    expect(row.version).toBe(2);
  });
});
