/** GET /v1/rental-insurances without filters: pages of 20, newest first, HAL links and page metadata. */
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { createMany, ids, linkOf, linkPages } from './list-links';

const world = useTestApp({}, { agencies: 1 });
const partner = asPartner(world);

describe('When a partner lists without paging parameters', () => {
  let newestFirst: number[];
  beforeAll(async () => {
    newestFirst = await createMany(partner, 23);
  });

  test('then it gets the first 20, newest first, with page metadata and absolute links', async () => {
    const response = await partner.list();
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(response.body).sort()).toEqual(['_embedded', '_links', 'page']);
    expect(ids(response)).toEqual(newestFirst.slice(0, 20));
    expect(response.body.page).toEqual({ size: 20, totalElements: 23, totalPages: 2, number: 0 });
    expect(linkPages(response)).toEqual({
      self: { page: '0', pageSize: '20' },
      first: { page: '0', pageSize: '20' },
      last: { page: '1', pageSize: '20' },
      next: { page: '1', pageSize: '20' },
    });
    const self = linkOf(response, 'self')!;
    expect(self.protocol).toBe('http:');
    expect(self.pathname).toBe('/rental-guarantee/v1/rental-insurances');
  });

  test('then the second page holds the rest, with prev and without next', async () => {
    const response = await partner.list([['page', 1]]);
    expect(ids(response)).toEqual(newestFirst.slice(20));
    expect(response.body.page).toEqual({ size: 20, totalElements: 23, totalPages: 2, number: 1 });
    expect(linkPages(response)).toEqual({
      self: { page: '1', pageSize: '20' },
      first: { page: '0', pageSize: '20' },
      last: { page: '1', pageSize: '20' },
      prev: { page: '0', pageSize: '20' },
    });
  });

  test('then a middle page has both prev and next', async () => {
    const response = await partner.list([
      ['page', 2],
      ['pageSize', 5],
    ]);
    expect(ids(response)).toEqual(newestFirst.slice(10, 15));
    expect(response.body.page).toEqual({ size: 5, totalElements: 23, totalPages: 5, number: 2 });
    expect(linkPages(response)).toEqual({
      self: { page: '2', pageSize: '5' },
      first: { page: '0', pageSize: '5' },
      last: { page: '4', pageSize: '5' },
      prev: { page: '1', pageSize: '5' },
      next: { page: '3', pageSize: '5' },
    });
  });

  test('then walking every page with next visits each guarantee exactly once, newest first', async () => {
    const seen: number[] = [];
    let response = await partner.list([['pageSize', 7]]);
    for (;;) {
      seen.push(...ids(response));
      const next = linkOf(response, 'next');
      if (!next) break;
      response = await partner.list([...next.searchParams.entries()]);
    }
    expect(seen).toEqual(newestFirst);
  });

  test('then guarantees created in the same millisecond are ordered by id, newest first', async () => {
    const own = await world.newAgency();
    const sameInstant = await createMany(asPartner(world, own), 3);
    await world.db.rentalInsurance.updateMany({ where: { companyId: own.companyId }, data: { createdAt: new Date('2026-01-01T00:00:00.000Z') } });
    const older = await createMany(asPartner(world, own), 1);
    await world.db.rentalInsurance.update({ where: { id: BigInt(older[0]!) }, data: { createdAt: new Date('2025-01-01T00:00:00.000Z') } });
    const response = await asPartner(world, own).list();
    expect(ids(response)).toEqual([...sameInstant, ...older]);
    // createdAt, not id, decides first: the latest id was given the oldest createdAt.
    expect(sameInstant.every((id) => id < older[0]!)).toBe(true);
  });
});
