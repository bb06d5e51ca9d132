/** The per-status counts behind list totals stay equal to the rows, whatever changes the statuses. */
import { backOffice } from '../support/back-office';
import { asPartner, type ListQuery } from '../support/partner-api';
import { useTestApp } from '../support/test-app';

const world = useTestApp();

async function countsMatchRows(): Promise<void> {
  const rows = await world.db.$queryRaw<Array<{ company_id: string; status: string; n: bigint }>>`
    SELECT company_id, status::text AS status, count(*) AS n FROM rental_insurances GROUP BY 1, 2 ORDER BY 1, 2`;
  const counted = await world.db.$queryRaw<Array<{ company_id: string; status: string; n: bigint }>>`
    SELECT company_id, status::text AS status, sum(count) AS n FROM guarantee_status_counts GROUP BY 1, 2 HAVING sum(count) <> 0 ORDER BY 1, 2`;
  expect(counted.map((row) => [row.company_id, row.status, Number(row.n)])).toEqual(rows.map((row) => [row.company_id, row.status, Number(row.n)]));
}

test('When guarantees are created, reviewed, accepted, changed and deleted, then the counts equal the rows and list totals use them', async () => {
  const agency = await world.newAgency();
  const other = await world.newAgency();
  const office = backOffice(world);
  const partner = asPartner(world, agency);
  const ids: number[] = [];
  for (let index = 0; index < 12; index += 1) ids.push((await asPartner(world, index % 3 === 0 ? other : agency).newGuarantee()).id);
  const mine = ids.filter((_, index) => index % 3 !== 0);
  await office.approve(mine[0]!);
  await office.approve(mine[1]!);
  await partner.accept(mine[1]!);
  await office.decline(mine[2]!);
  await office.requestInformation(mine[3]!);
  await partner.patch(mine[3]!, { rentalAmount: 4100 }, { ifMatch: 'W/"2"' }); // back to under_review
  await world.db.rentalInsurance.update({ where: { id: BigInt(mine[4]!) }, data: { status: 'active' } });
  await world.db.rentalInsurance.delete({ where: { id: BigInt(mine[5]!) } });
  // Concurrent status changes of different guarantees of one company.
  await Promise.all(mine.slice(6).map((id) => office.approve(id)));
  await countsMatchRows();

  const total = async (query: ListQuery = {}) => (await partner.list(query)).body.page.totalElements;
  expect(await total()).toBe(7);
  expect(await total({ status: ['approved'] })).toBe(3);
  expect(await total({ status: ['approved', 'accepted'] })).toBe(4);
  expect(await total({ status: ['under_review'] })).toBe(1);
  expect(await total({ status: ['archived'] })).toBe(0);
});
