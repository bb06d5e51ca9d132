/** The per-status counts behind list totals stay equal to the rows, whatever changes the statuses. */
import request from 'supertest';
import { backOffice } from '../support/back-office';
import { createGuarantee } from '../support/factories';
import { partnerClient } from '../support/partner-client';
import { API, startTestApp, type TestApp } from '../support/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

async function countsMatchRows(): Promise<void> {
  const rows = await t.db.$queryRaw<Array<{ company_id: string; status: string; n: bigint }>>`
    SELECT company_id, status::text AS status, count(*) AS n FROM rental_insurances GROUP BY 1, 2 ORDER BY 1, 2`;
  const counted = await t.db.$queryRaw<Array<{ company_id: string; status: string; n: bigint }>>`
    SELECT company_id, status::text AS status, sum(count) AS n FROM guarantee_status_counts GROUP BY 1, 2 HAVING sum(count) <> 0 ORDER BY 1, 2`;
  expect(counted.map((row) => [row.company_id, row.status, Number(row.n)])).toEqual(rows.map((row) => [row.company_id, row.status, Number(row.n)]));
}

test('When guarantees are created, reviewed, accepted, changed and deleted, then the counts equal the rows and list totals use them', async () => {
  const agency = await t.newAgency();
  const other = await t.newAgency();
  const office = backOffice(t);
  const partner = partnerClient(t, agency);
  const ids: number[] = [];
  for (let index = 0; index < 12; index += 1) ids.push((await createGuarantee(t, index % 3 === 0 ? other : agency)).id);
  const mine = ids.filter((_, index) => index % 3 !== 0);
  await office.approve(mine[0]!);
  await office.approve(mine[1]!);
  await partner.accept(mine[1]!);
  await office.decline(mine[2]!);
  await office.requestInformation(mine[3]!);
  await partner.patch(mine[3]!, 'W/"2"', { rentalAmount: 4100 }); // back to under_review
  await t.db.rentalInsurance.update({ where: { id: BigInt(mine[4]!) }, data: { status: 'active' } });
  await t.db.rentalInsurance.delete({ where: { id: BigInt(mine[5]!) } });
  // Concurrent status changes of different guarantees of one company.
  await Promise.all(mine.slice(6).map((id) => office.approve(id)));
  await countsMatchRows();

  const list = (query: string) => request(t.app).get(`${API}/v1/rental-insurances${query}`).set(agency.auth);
  expect((await list('')).body.page.totalElements).toBe(7);
  expect((await list('?status=approved')).body.page.totalElements).toBe(3);
  expect((await list('?status=approved&status=accepted')).body.page.totalElements).toBe(4);
  expect((await list('?status=under_review')).body.page.totalElements).toBe(1);
  expect((await list('?status=archived')).body.page.totalElements).toBe(0);
});
