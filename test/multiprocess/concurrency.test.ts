/**
 * Two real service processes on ONE PostgreSQL database, with bursts of concurrent requests
 * alternating between them:
 *  (a) one idempotency key, 20 creates          -> exactly one guarantee; the rest are 409
 *      idempotency_key_in_use (Retry-After: 1) or byte-identical replays;
 *  (b) one If-Match version, 20 PATCHes          -> exactly one 200, the rest 412; version +1, one history entry;
 *  (c) accept and refuse of one approved proposal -> exactly one wins, the rest 409 invalid_state;
 *  (d) co-tenant writes with one If-Match         -> exactly one applied, the rest 412.
 * The database comes from useTestApp() (a fresh clone of the migrated template, with its
 * credentials); the in-process app is only used for setup and the back office.
 */
import { randomUUID } from 'node:crypto';
import { backOffice } from '../support/back-office';
import { errorBodyProblem } from '../support/contract-rules';
import { guaranteeBody, nextCpf } from '../support/factories';
import { asPartner } from '../support/partner-api';
import { rawSocketRequest } from '../support/raw-http';
import { call, startService, stopAllServices, type FetchResult, type ServiceProcess } from '../support/service-process';
import { useTestApp } from '../support/test-app';

jest.setTimeout(60_000);

const world = useTestApp({}, { agencies: [{ displayName: 'Multi-process ERP' }] });
const partner = asPartner(world);
world.beforeClose(stopAllServices);
let services: ServiceProcess[];
beforeAll(async () => {
  services = await Promise.all([startService(world.databaseUrl), startService(world.databaseUrl)]);
}, 180_000);

interface BurstRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
}

/** Sends the requests at once, the i-th to service i mod n. */
function burst(requests: BurstRequest[]): Promise<FetchResult[]> {
  return Promise.all(
    requests.map((request, index) =>
      call(services[index % services.length]!.origin, request.method, request.path, { ...world.agency.auth, ...request.headers }, request.body),
    ),
  );
}

const tally = (results: FetchResult[]) => {
  const counts = results.reduce<Record<string, number>>((all, result) => {
    const label = `${result.status}${result.body?.['code'] ? ` ${String(result.body['code'])}` : ''}${result.headers.get('idempotent-replay') === 'true' ? ' replay' : ''}`;
    all[label] = (all[label] ?? 0) + 1;
    return all;
  }, {});
  if (process.env.MULTIPROCESS_REPORT) console.info(expect.getState().currentTestName, JSON.stringify(counts));
  return counts;
};

function expectSpecErrors(results: FetchResult[]): void {
  for (const result of results.filter((candidate) => candidate.status >= 400)) {
    const headers: Record<string, string> = {};
    result.headers.forEach((value, name) => (headers[name] = value));
    expect(errorBodyProblem({ status: result.status, headers, text: result.text })).toBeNull();
  }
}

const historyCount = (id: number) => world.db.historyEntry.count({ where: { rentalInsuranceId: BigInt(id) } });
const versionOf = async (id: number) => (await world.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(id) } })).version;

test('the two processes are distinct and serve the same database', async () => {
  expect(services[0]!.pid).not.toBe(services[1]!.pid);
  const created = await partner.newGuarantee();
  for (const service of services)
    expect((await call(service.origin, 'GET', `/v1/rental-insurances/${created.id}`, world.agency.auth)).status).toBe(200);
});

describe('(a) the same idempotency key from 20 concurrent creates', () => {
  test.each([1, 2, 3])('round %i: exactly one guarantee; the others are 409 idempotency_key_in_use or identical replays', async () => {
    const key = randomUUID();
    const body = guaranteeBody();
    const before = await world.db.rentalInsurance.count({ where: { companyId: world.agency.companyId } });
    const results = await burst(
      Array.from({ length: 20 }, () => ({ method: 'POST', path: '/v1/rental-insurances', headers: { 'Idempotency-Key': key }, body })),
    );
    const firsts = results.filter((result) => result.status === 201 && result.headers.get('idempotent-replay') === 'false');
    const replays = results.filter((result) => result.status === 201 && result.headers.get('idempotent-replay') === 'true');
    const inUse = results.filter((result) => result.status === 409 && result.body?.['code'] === 'idempotency_key_in_use');
    expect({ tally: tally(results), firsts: firsts.length, accounted: firsts.length + replays.length + inUse.length }).toEqual({
      tally: tally(results),
      firsts: 1,
      accounted: 20,
    });
    for (const replay of replays) expect(replay.text).toBe(firsts[0]!.text);
    for (const conflict of inUse) expect(conflict.headers.get('retry-after')).toBe('1');
    expectSpecErrors(results);
    expect(await world.db.rentalInsurance.count({ where: { companyId: world.agency.companyId } })).toBe(before + 1);
    expect(await world.db.idempotencyRecord.count({ where: { companyId: world.agency.companyId, key } })).toBe(1);
    expect(await historyCount(firsts[0]!.body!['id'] as number)).toBe(1);
  });
});

describe('(b) the same If-Match version on 20 concurrent PATCHes (different keys and values)', () => {
  test.each([1, 2, 3])('round %i: exactly one 200, the rest 412; version and history move once', async () => {
    const created = await partner.newGuarantee();
    const values = Array.from({ length: 20 }, (_, index) => `EXT-${index}-${randomUUID().slice(0, 6)}`);
    const results = await burst(
      values.map((externalId) => ({
        method: 'PATCH',
        path: `/v1/rental-insurances/${created.id}`,
        headers: { 'Idempotency-Key': randomUUID(), 'If-Match': 'W/"1"', 'Content-Type': 'application/merge-patch+json' },
        body: JSON.stringify({ externalId }),
      })),
    );
    const winners = results.filter((result) => result.status === 200);
    const stale = results.filter((result) => result.status === 412 && result.body?.['code'] === 'precondition_failed');
    expect({ tally: tally(results), winners: winners.length, stale: stale.length }).toEqual({ tally: tally(results), winners: 1, stale: 19 });
    for (const loser of stale) expect(loser.headers.get('etag')).toBe('W/"2"');
    expectSpecErrors(results);
    const row = await world.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(created.id) } });
    expect(row.version).toBe(2);
    expect(row.externalId).toBe(winners[0]!.body!['externalId']);
    expect(await historyCount(created.id)).toBe(2);
  });
});

describe('(c) accept and refuse of one approved proposal, concurrently', () => {
  test.each([1, 2, 3, 4])('round %i: exactly one decision wins, the others are 409 invalid_state; history holds one decision', async () => {
    const created = await partner.newGuarantee({ coTenants: [{ cpfCnpj: nextCpf(), name: 'Co' }] });
    await backOffice(world).approve(created.id);
    const versionBefore = await versionOf(created.id);
    const historyBefore = await historyCount(created.id);
    const decisions = Array.from({ length: 20 }, (_, index) => (index % 4 < 2 ? 'accept' : 'refuse'));
    const results = await burst(
      decisions.map((decision) => ({
        method: 'POST',
        path: `/v1/rental-insurances/${created.id}/${decision}`,
        headers: { 'Idempotency-Key': randomUUID() },
      })),
    );
    const winners = results.map((result, index) => ({ result, decision: decisions[index]! })).filter(({ result }) => result.status === 200);
    const refused = results.filter((result) => result.status === 409 && result.body?.['code'] === 'invalid_state');
    expect({ tally: tally(results), winners: winners.length, refused: refused.length }).toEqual({ tally: tally(results), winners: 1, refused: 19 });
    expectSpecErrors(results);
    const expectedStatus = winners[0]!.decision === 'accept' ? 'accepted' : 'declined_by_tenant';
    const row = await world.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(created.id) } });
    expect([row.status, row.version]).toEqual([expectedStatus, versionBefore + 1]);
    const history = await world.db.historyEntry.findMany({ where: { rentalInsuranceId: BigInt(created.id) }, orderBy: { id: 'asc' } });
    expect(history).toHaveLength(historyBefore + 1);
    expect([history.at(-1)!.previousStatus, history.at(-1)!.status]).toEqual(['approved', expectedStatus]);
    // Accepting requests the signatures of the document, the tenant and the co-tenant; refusing none.
    expect(await world.db.signature.count({ where: { rentalInsuranceId: BigInt(created.id) } })).toBe(expectedStatus === 'accepted' ? 3 : 0);
  });
});

describe('(d) co-tenant writes with the same If-Match, concurrently', () => {
  test.each([1, 2, 3])('round %i: 20 adds of different co-tenants -> exactly one added, the rest 412', async () => {
    const created = await partner.newGuarantee();
    const results = await burst(
      Array.from({ length: 20 }, (_, index) => ({
        method: 'POST',
        path: `/v1/rental-insurances/${created.id}/co-tenants`,
        headers: { 'Idempotency-Key': randomUUID(), 'If-Match': 'W/"1"' },
        body: { cpfCnpj: nextCpf(), name: `Co-tenant ${index}` },
      })),
    );
    const added = results.filter((result) => result.status === 201);
    expect({ tally: tally(results), added: added.length, stale: results.filter((result) => result.status === 412).length }).toEqual({
      tally: tally(results),
      added: 1,
      stale: 19,
    });
    expectSpecErrors(results);
    const coTenants = await world.db.coTenant.findMany({ where: { rentalInsuranceId: BigInt(created.id) } });
    expect(coTenants.map((coTenant) => coTenant.cpfCnpj)).toEqual([(added[0]!.body!['coTenants'] as Array<{ cpfCnpj: string }>)[0]!.cpfCnpj]);
    expect([await versionOf(created.id), await historyCount(created.id)]).toEqual([2, 2]);
  });

  test('10 adds of the SAME co-tenant with different keys and versions in flight -> one co-tenant, never a duplicate row', async () => {
    const created = await partner.newGuarantee();
    const cpfCnpj = nextCpf();
    const results = await burst(
      Array.from({ length: 10 }, () => ({
        method: 'POST',
        path: `/v1/rental-insurances/${created.id}/co-tenants`,
        headers: { 'Idempotency-Key': randomUUID(), 'If-Match': 'W/"1"' },
        body: { cpfCnpj, name: 'Same person' },
      })),
    );
    expect(results.filter((result) => result.status === 201)).toHaveLength(1);
    expect(results.every((result) => result.status === 201 || result.status === 412)).toBe(true);
    expect(await world.db.coTenant.count({ where: { rentalInsuranceId: BigInt(created.id) } })).toBe(1);
  });

  test('a patch and a removal of one co-tenant with the same If-Match -> exactly one applies', async () => {
    for (let round = 0; round < 3; round += 1) {
      const cpfCnpj = nextCpf();
      const created = await partner.newGuarantee({ coTenants: [{ cpfCnpj, name: 'Before' }] });
      const results = await burst(
        Array.from({ length: 10 }, (_, index): BurstRequest =>
          index % 2 === 0
            ? {
                method: 'DELETE',
                path: `/v1/rental-insurances/${created.id}/co-tenants/${cpfCnpj}`,
                headers: { 'Idempotency-Key': randomUUID(), 'If-Match': 'W/"1"' },
              }
            : {
                method: 'PATCH',
                path: `/v1/rental-insurances/${created.id}/co-tenants/${cpfCnpj}`,
                headers: { 'Idempotency-Key': randomUUID(), 'If-Match': 'W/"1"', 'Content-Type': 'application/merge-patch+json' },
                body: JSON.stringify({ name: `After ${index}` }),
              },
        ),
      );
      expect({ round, tally: tally(results), applied: results.filter((result) => result.status === 200).length }).toEqual({
        round,
        tally: tally(results),
        applied: 1,
      });
      expect(results.filter((result) => result.status !== 200).every((result) => result.status === 412)).toBe(true);
      expect([await versionOf(created.id), await historyCount(created.id)]).toEqual([2, 2]);
    }
  });
});

describe('A real service process and bytes no conforming client sends', () => {
  test.each([
    ['a control character in a header value', 'X-Note: abc\u0001def\r\n'],
    ['an obs-fold continuation line', 'X-Note: abc\r\n  folded\r\n'],
  ])('%s: 400 in the specification error shape, with X-Correlation-Id', async (_name, line) => {
    const service = services[0]!;
    const answer = await rawSocketRequest(
      service.port,
      `GET /rental-guarantee/v1/rental-insurances HTTP/1.1\r\nHost: 127.0.0.1\r\n${line}Connection: close\r\n\r\n`,
    );
    expect(answer.statusLine).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer.headers['x-correlation-id']).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    expect(errorBodyProblem({ status: 400, headers: answer.headers, text: answer.body })).toBeNull();
    expect(service.alive()).toBe(true);
  });
});
