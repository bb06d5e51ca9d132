/**
 * Agencies never see each other's data through lists, financial figures or idempotency keys: list
 * filters by A's CPF, name, externalId or status find nothing for B; financial endpoints show only
 * the caller's own entries; idempotency keys of one agency never collide with another's, even
 * concurrently. (Ids: tenant-isolation.test.ts; revocation: tenant-isolation-revocation.test.ts.)
 */
import { randomUUID } from 'node:crypto';
import { postStatementEntry } from '../../src/financial/ledger-service';
import { inUnitOfWork } from '../../src/database/unit-of-work';
import { todayInSaoPaulo } from '../../src/database/column-values';
import { addDays } from '../../src/financial/date-range';
import { guaranteeBody } from '../support/factories';
import type { Target } from '../support/operation-requests';
import { API, asPartner } from '../support/partner-api';
import type { Agency } from '../support/test-app';
import { useIsolationWorld } from './isolation-world';

const { world, agencyA, agencyB, approvedGuaranteeOfA, send } = useIsolationWorld();

describe("Lists never show another agency's guarantees", () => {
  let ofA: Target;
  let cpfOfA: string;
  beforeAll(async () => {
    ofA = await approvedGuaranteeOfA();
    cpfOfA = (await world.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(ofA.id) } })).tenantCpfCnpj;
  });

  const list = (agency: Agency, query: Array<[string, string]>) =>
    send({ method: 'GET', path: `${API}/v1/rental-insurances?${new URLSearchParams(query).toString()}`, headers: agency.auth });

  test.each([
    ['tenantCpfCnpj', () => cpfOfA],
    ['tenantCpfCnpj (formatted)', () => `${cpfOfA.slice(0, 3)}.${cpfOfA.slice(3, 6)}.${cpfOfA.slice(6, 9)}-${cpfOfA.slice(9)}`],
    ['tenantName', () => 'Maria Isolada'],
    ['tenantName (substring, other case)', () => 'isolad'],
    ['propertyExternalId', () => 'IMV-isolation-A'],
    ['status', () => 'approved'],
  ] as Array<[string, () => string]>)('filtering by %s of A finds nothing for B (and finds it for A)', async (label, value) => {
    const name = label.split(' ')[0]!;
    if (name === 'propertyExternalId') {
      await world.db.rentalInsurance.update({ where: { id: BigInt(ofA.id) }, data: { propertyExternalId: 'IMV-isolation-A' } });
    }
    const forB = await list(agencyB(), [
      [name, value()],
      ['pageSize', '200'],
    ]);
    expect(forB.status).toBe(200);
    expect(forB.body?.['page']).toMatchObject({ totalElements: 0 });
    expect((forB.body?.['_embedded'] as { rentalInsurances: unknown[] }).rentalInsurances).toEqual([]);
    const forA = await list(agencyA(), [
      [name, value()],
      ['pageSize', '200'],
    ]);
    expect((forA.body?.['_embedded'] as { rentalInsurances: Array<{ id: number }> }).rentalInsurances.map((item) => item.id)).toContain(ofA.id);
  });

  test("B's unfiltered pages (every status, every page) contain none of A's ids", async () => {
    const idsOfA = new Set(
      (await world.db.rentalInsurance.findMany({ where: { companyId: agencyA().companyId }, select: { id: true } })).map((row) => Number(row.id)),
    );
    const seen: number[] = [];
    for (let page = 0; page < 50; page += 1) {
      const response = await list(agencyB(), [
        ['page', String(page)],
        ['pageSize', '1'],
      ]);
      const items = (response.body?.['_embedded'] as { rentalInsurances: Array<{ id: number }> }).rentalInsurances;
      if (items.length === 0) break;
      seen.push(...items.map((item) => item.id));
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((id) => idsOfA.has(id))).toEqual([]);
  });
});

describe("Financial endpoints never show another agency's entries", () => {
  const today = todayInSaoPaulo();
  const range = `startDate=${addDays(today, -10)}&endDate=${today}`;
  beforeAll(async () => {
    await inUnitOfWork(world.db, async (unit) => {
      await postStatementEntry(unit, {
        companyId: agencyA().companyId,
        date: addDays(today, -2),
        description: 'Charge of A',
        type: 'charge_paid',
        amountCents: 777700n,
      });
      await postStatementEntry(unit, {
        companyId: agencyA().companyId,
        date: addDays(today, -1),
        description: 'Fee of A',
        type: 'fee',
        amountCents: 1100n,
      });
      await postStatementEntry(unit, {
        companyId: agencyB().companyId,
        date: addDays(today, -1),
        description: 'Charge of B',
        type: 'charge_paid',
        amountCents: 100n,
      });
    });
  });
  const get = (agency: Agency, path: string) => send({ method: 'GET', path: `${API}/v1/financial/${path}`, headers: agency.auth });

  test('balance: each agency sees its own sums only', async () => {
    expect((await get(agencyB(), 'balance')).body).toEqual({ balance: 1, credits: 1, debits: 0 });
    expect((await get(agencyA(), 'balance')).body).toEqual({ balance: 7766, credits: 7777, debits: 11 });
  });

  test('daily summaries: B sees only its own movement', async () => {
    const days = (await get(agencyB(), `daily-summaries?${range}`)).body as unknown as Array<{ credits: number; debits: number }>;
    expect(days.reduce((sum, day) => sum + day.credits, 0)).toBe(1);
    expect(days.reduce((sum, day) => sum + day.debits, 0)).toBe(0);
  });

  test('statement entries: B sees only its own, for every type filter', async () => {
    for (const query of [range, `${range}&type=charge_paid`, `${range}&type=fee`, `${range}&type=fee&type=charge_paid`]) {
      const response = await get(agencyB(), `statement-entries?${query}`);
      const entries = (response.body?.['_embedded'] as { statementEntries: Array<{ description: string }> }).statementEntries;
      expect(entries.map((entry) => entry.description).filter((description) => description.includes('of A'))).toEqual([]);
    }
    const mine = await get(agencyA(), `statement-entries?${range}`);
    expect((mine.body?.['_embedded'] as { statementEntries: unknown[] }).statementEntries).toHaveLength(2);
  });
});

describe('Idempotency keys never collide across agencies', () => {
  const create = (agency: Agency, key: string, body: unknown) =>
    send({
      method: 'POST',
      path: `${API}/v1/rental-insurances`,
      headers: { ...agency.auth, 'Idempotency-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });

  test('the same key and body from two agencies creates two guarantees, each replayed to its own agency', async () => {
    const key = `shared-${randomUUID()}`;
    const body = guaranteeBody();
    const ofA = await create(agencyA(), key, body);
    const ofB = await create(agencyB(), key, body);
    expect([ofA.status, ofB.status]).toEqual([201, 201]);
    expect([ofA.headers['idempotent-replay'], ofB.headers['idempotent-replay']]).toEqual(['false', 'false']);
    expect(ofB.body?.['id']).not.toBe(ofA.body?.['id']);
    const replayA = await create(agencyA(), key, body);
    const replayB = await create(agencyB(), key, body);
    expect([replayA.headers['idempotent-replay'], replayA.body?.['id']]).toEqual(['true', ofA.body?.['id']]);
    expect([replayB.headers['idempotent-replay'], replayB.body?.['id']]).toEqual(['true', ofB.body?.['id']]);
  });

  test('a key A used for another body is new for B (no idempotency_key_reused across agencies)', async () => {
    const key = `shared-${randomUUID()}`;
    expect((await create(agencyA(), key, guaranteeBody())).status).toBe(201);
    const forB = await create(agencyB(), key, guaranteeBody());
    expect([forB.status, forB.headers['idempotent-replay']]).toEqual([201, 'false']);
  });

  test('the same key sent by both agencies at the same moment succeeds for both (locks are per agency)', async () => {
    for (let round = 0; round < 5; round += 1) {
      const key = `concurrent-${randomUUID()}`;
      const [ofA, ofB] = await Promise.all([create(agencyA(), key, guaranteeBody()), create(agencyB(), key, guaranteeBody())]);
      expect([ofA.status, ofB.status, ofA.text.slice(0, 0)]).toEqual([201, 201, '']);
    }
  });

  test('a key used by A on a write of its own guarantee is new for B on its own guarantee', async () => {
    const key = `shared-${randomUUID()}`;
    const ofA = await approvedGuaranteeOfA();
    const ownOfB = await asPartner(world, agencyB).newGuarantee();
    const comment = (agency: Agency, id: number) =>
      send({
        method: 'POST',
        path: `${API}/v1/rental-insurances/${id}/comments`,
        headers: { ...agency.auth, 'Idempotency-Key': key, 'Content-Type': 'application/json' },
        body: '{"comment":"same key"}',
      });
    expect((await comment(agencyA(), Number(ofA.id))).status).toBe(201);
    const forB = await comment(agencyB(), ownOfB.id);
    expect([forB.status, forB.headers['idempotent-replay']]).toEqual([201, 'false']);
  });
});
