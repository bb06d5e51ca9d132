/**
 * A service process is killed (SIGKILL) in the middle of a burst of 50 creates with distinct
 * idempotency keys, spread over two processes on one database. Afterwards:
 *  - every write either fully happened or did not: each guarantee has exactly its creation history
 *    entry and one idempotency record, each record names an existing guarantee, no orphan rows;
 *  - every answer the client did receive is true (a 201's guarantee exists);
 *  - retrying all 50 with the same keys and bodies against the surviving process completes them
 *    all: each key -> exactly one guarantee, the ones already done are replayed unchanged.
 */
import { randomUUID } from 'node:crypto';
import { guaranteeBody, nextCpf } from '../support/factories';
import { call, startService, stopAllServices, type FetchResult, type ServiceProcess } from '../support/service-process';
import { useTestApp } from '../support/test-app';

jest.setTimeout(90_000);

const world = useTestApp({}, { agencies: [{ displayName: 'Crash suite ERP' }] });
world.beforeClose(stopAllServices);
let victim: ServiceProcess;
let survivor: ServiceProcess;
beforeAll(async () => {
  [victim, survivor] = await Promise.all([startService(world.databaseUrl), startService(world.databaseUrl)]);
}, 180_000);

interface Attempt {
  key: string;
  body: Record<string, unknown>;
  target: 'victim' | 'survivor';
  first?: FetchResult;
}

async function consistency(companyId: string) {
  const [guarantees, records, history, orphanHistory, orphanCoTenants] = await Promise.all([
    world.db.rentalInsurance.findMany({ where: { companyId }, select: { id: true, version: true, status: true } }),
    world.db.idempotencyRecord.findMany({ where: { companyId } }),
    world.db.historyEntry.groupBy({ by: ['rentalInsuranceId', 'kind'], _count: { _all: true }, where: { rentalInsurance: { companyId } } }),
    world.db.$queryRawUnsafe<Array<{ count: number }>>(
      `SELECT count(*)::int AS count FROM history_entries h LEFT JOIN rental_insurances r ON r.id = h.rental_insurance_id WHERE r.id IS NULL`,
    ),
    world.db.$queryRawUnsafe<Array<{ count: number }>>(
      `SELECT count(*)::int AS count FROM co_tenants c LEFT JOIN rental_insurances r ON r.id = c.rental_insurance_id WHERE r.id IS NULL`,
    ),
  ]);
  const recordIds = records.map((record) => Number((JSON.parse(record.responseBody!) as { id: number }).id)).sort((a, b) => a - b);
  const guaranteeIds = guarantees.map((row) => Number(row.id)).sort((a, b) => a - b);
  return {
    guarantees: guaranteeIds.length,
    everyGuaranteeHasOneRecord: JSON.stringify(recordIds) === JSON.stringify(guaranteeIds),
    everyGuaranteeHasExactlyItsCreationEntry:
      history.length === guaranteeIds.length && history.every((group) => group.kind === 'created' && group._count._all === 1),
    versionsAreOne: guarantees.every((row) => row.version === 1 && row.status === 'under_review'),
    orphanHistory: orphanHistory[0]!.count,
    orphanCoTenants: orphanCoTenants[0]!.count,
    recordsByKey: new Map(records.map((record) => [record.key, Number((JSON.parse(record.responseBody!) as { id: number }).id)])),
  };
}

test('kill -9 of one process during 50 concurrent creates: all-or-nothing, then retries complete every key exactly once', async () => {
  const attempts: Attempt[] = Array.from({ length: 50 }, (_, index) => ({
    key: `crash-${randomUUID()}`,
    body: guaranteeBody({ coTenants: [{ cpfCnpj: nextCpf(), name: 'Co' }] }),
    target: index % 2 === 0 ? 'victim' : 'survivor',
  }));
  let answeredByVictim = 0;
  let killedAfter = -1;
  const killed = new Promise<void>((resolve) => {
    const check = setInterval(() => {
      // Kill once the victim answered a few creates, while it still has writes in flight.
      if (answeredByVictim >= 3) {
        clearInterval(check);
        killedAfter = answeredByVictim;
        void victim.kill('SIGKILL').then(resolve);
      }
    }, 1);
  });
  await Promise.all(
    attempts.map(async (attempt) => {
      const service = attempt.target === 'victim' ? victim : survivor;
      attempt.first = await call(
        service.origin,
        'POST',
        '/v1/rental-insurances',
        { ...world.agency.auth, 'Idempotency-Key': attempt.key },
        attempt.body,
      );
      if (attempt.target === 'victim' && attempt.first.status !== 0) answeredByVictim += 1;
    }),
  );
  await killed;
  expect(victim.alive()).toBe(false);

  const ofVictim = attempts.filter((attempt) => attempt.target === 'victim');
  const lost = ofVictim.filter((attempt) => attempt.first!.status === 0);
  const summary = {
    victimAnswersBeforeKill: killedAfter,
    victimAnswered201: ofVictim.filter((attempt) => attempt.first!.status === 201).length,
    victimNoAnswer: lost.length,
    survivor201: attempts.filter((attempt) => attempt.target === 'survivor' && attempt.first!.status === 201).length,
  };
  // The kill happened in the middle: some of the victim's requests got no answer.
  expect(summary.victimNoAnswer).toBeGreaterThan(0);
  // Every request to the survivor completed normally.
  expect(summary.survivor201).toBe(25);

  const afterCrash = await consistency(world.agency.companyId);
  expect({
    everyGuaranteeHasOneRecord: afterCrash.everyGuaranteeHasOneRecord,
    everyGuaranteeHasExactlyItsCreationEntry: afterCrash.everyGuaranteeHasExactlyItsCreationEntry,
    versionsAreOne: afterCrash.versionsAreOne,
    orphanHistory: afterCrash.orphanHistory,
    orphanCoTenants: afterCrash.orphanCoTenants,
  }).toEqual({
    everyGuaranteeHasOneRecord: true,
    everyGuaranteeHasExactlyItsCreationEntry: true,
    versionsAreOne: true,
    orphanHistory: 0,
    orphanCoTenants: 0,
  });
  // Each guarantee has its co-tenant (the create wrote all of its rows or none).
  expect(await world.db.coTenant.count({ where: { rentalInsurance: { companyId: world.agency.companyId } } })).toBe(afterCrash.guarantees);
  // Every 201 the client saw is in the database under its key.
  for (const attempt of attempts.filter((candidate) => candidate.first!.status === 201)) {
    expect(afterCrash.recordsByKey.get(attempt.key)).toBe(attempt.first!.body!['id']);
  }
  // Writes without an answer either committed (with their record) or left nothing.
  const committedWithoutAnswer = lost.filter((attempt) => afterCrash.recordsByKey.has(attempt.key)).length;
  expect(afterCrash.guarantees).toBe(summary.victimAnswered201 + summary.survivor201 + committedWithoutAnswer);

  // Retry everything with the same keys and bodies on the survivor; a key still held by the dead
  // process's transaction answers 409 idempotency_key_in_use until PostgreSQL ends that session.
  const started = Date.now();
  let inUseAnswers = 0;
  const retried = await Promise.all(
    attempts.map(async (attempt) => {
      for (;;) {
        const result = await call(
          survivor.origin,
          'POST',
          '/v1/rental-insurances',
          { ...world.agency.auth, 'Idempotency-Key': attempt.key },
          attempt.body,
        );
        if (result.status === 409) inUseAnswers += 1;
        if (result.status === 409 && result.body?.['code'] === 'idempotency_key_in_use' && Date.now() - started < 40_000) {
          await new Promise((resolve) => setTimeout(resolve, 1000 * Number(result.headers.get('retry-after') ?? 1)));
          continue;
        }
        return result;
      }
    }),
  );
  const retryMs = Date.now() - started;
  if (process.env.MULTIPROCESS_REPORT) {
    console.info(
      JSON.stringify({
        ...summary,
        committedWithoutAnswer,
        retryMs,
        inUseAnswers,
        replayed: retried.filter((result) => result.headers.get('idempotent-replay') === 'true').length,
      }),
    );
  }
  expect(retried.map((result) => result.status)).toEqual(attempts.map(() => 201));
  for (const [index, attempt] of attempts.entries()) {
    const result = retried[index]!;
    if (attempt.first!.status === 201) {
      // Done before: the stored answer, byte for byte.
      expect([result.headers.get('idempotent-replay'), result.text]).toEqual(['true', attempt.first!.text]);
    }
  }
  const ids = retried.map((result) => result.body!['id'] as number);
  expect(new Set(ids).size).toBe(50);
  const final = await consistency(world.agency.companyId);
  expect({ guarantees: final.guarantees, one: final.everyGuaranteeHasOneRecord, history: final.everyGuaranteeHasExactlyItsCreationEntry }).toEqual({
    guarantees: 50,
    one: true,
    history: true,
  });
  for (const [index, attempt] of attempts.entries()) expect(final.recordsByKey.get(attempt.key)).toBe(ids[index]);
});
