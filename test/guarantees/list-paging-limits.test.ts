/** GET /v1/rental-insurances with paging parameters out of range (clamped, empty pages) or not integers (400). */
import { expectDetailFor, expectErrorBody } from '../support/error-body';
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { createMany, linkOf, linkPages } from './list-links';

const world = useTestApp({}, { agencies: 1 });
const partner = asPartner(world);

describe('When a partner sends out-of-range paging parameters', () => {
  beforeAll(async () => {
    await createMany(partner, 3);
  });

  test('then a negative page is treated as page 0', async () => {
    const response = await partner.list([
      ['page', -4],
      ['pageSize', 2],
    ]);
    expect(response.status).toBe(200);
    expect(response.body.page).toEqual({ size: 2, totalElements: 3, totalPages: 2, number: 0 });
    expect(response.body._embedded.rentalInsurances).toHaveLength(2);
    expect(linkPages(response)).toEqual({
      self: { page: '0', pageSize: '2' },
      first: { page: '0', pageSize: '2' },
      last: { page: '1', pageSize: '2' },
      next: { page: '1', pageSize: '2' },
    });
  });

  test('then pageSize 0 is clamped to 1', async () => {
    const response = await partner.list([['pageSize', 0]]);
    expect(response.status).toBe(200);
    expect(response.body.page).toEqual({ size: 1, totalElements: 3, totalPages: 3, number: 0 });
    expect(response.body._embedded.rentalInsurances).toHaveLength(1);
    expect(linkOf(response, 'next')!.searchParams.get('pageSize')).toBe('1');
  });

  test('then a negative pageSize is clamped to 1', async () => {
    const response = await partner.list([['pageSize', -10]]);
    expect(response.status).toBe(200);
    expect(response.body.page.size).toBe(1);
  });

  test("then pageSize 500 is clamped to 200, the specification's maximum", async () => {
    const response = await partner.list([['pageSize', 500]]);
    expect(response.status).toBe(200);
    expect(response.body.page).toEqual({ size: 200, totalElements: 3, totalPages: 1, number: 0 });
    expect(response.body._embedded.rentalInsurances).toHaveLength(3);
    expect(linkOf(response, 'self')!.searchParams.get('pageSize')).toBe('200');
    expect(linkOf(response, 'last')!.searchParams.get('pageSize')).toBe('200');
  });

  test('then a page past the end is empty with correct metadata and prev pointing at the last page', async () => {
    const response = await partner.list([
      ['page', 5],
      ['pageSize', 2],
    ]);
    expect(response.status).toBe(200);
    expect(response.body._embedded).toEqual({ rentalInsurances: [] });
    expect(response.body.page).toEqual({ size: 2, totalElements: 3, totalPages: 2, number: 5 });
    expect(linkPages(response)).toEqual({
      self: { page: '5', pageSize: '2' },
      first: { page: '0', pageSize: '2' },
      last: { page: '1', pageSize: '2' },
      prev: { page: '1', pageSize: '2' },
    });
  });

  test('then the page right after the last is empty and its prev is the last page', async () => {
    const response = await partner.list([
      ['page', 2],
      ['pageSize', 2],
    ]);
    expect(response.body._embedded.rentalInsurances).toEqual([]);
    expect(response.body.page.number).toBe(2);
    expect(linkPages(response)['prev']).toEqual({ page: '1', pageSize: '2' });
    expect(response.body._links.next).toBeUndefined();
  });

  test('then a very large page number is still answered empty with number = the requested page', async () => {
    const response = await partner.list([
      ['page', 5_000_000_000],
      ['pageSize', 2],
    ]);
    expect(response.status).toBe(200);
    expect(response.body._embedded.rentalInsurances).toEqual([]);
    expect(response.body.page).toEqual({ size: 2, totalElements: 3, totalPages: 2, number: 5_000_000_000 });
    expect(linkPages(response)['self']).toEqual({ page: '5000000000', pageSize: '2' });
  });

  test('then an agency with no guarantees gets an empty page, last = first = page 0 and no prev/next', async () => {
    const empty = await world.newAgency();
    const response = await asPartner(world, empty).list();
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      _embedded: { rentalInsurances: [] },
      _links: { self: expect.any(Object), first: expect.any(Object), last: expect.any(Object) },
      page: { size: 20, totalElements: 0, totalPages: 0, number: 0 },
    });
    expect(linkPages(response)).toEqual({
      self: { page: '0', pageSize: '20' },
      first: { page: '0', pageSize: '20' },
      last: { page: '0', pageSize: '20' },
    });
  });

  test.each([
    ['page', 'abc'],
    ['page', '1.5'],
    ['pageSize', 'ten'],
    ['pageSize', '2.5'],
  ])('then %s=%s (not an integer) is 400 validation_failed naming the parameter', async (name, value) => {
    const response = await partner.list([[name, value]]);
    expectErrorBody(response, 400, 'validation_failed');
    expectDetailFor(response, `query.${name}`);
  });

  test('then a status outside the enumeration is 400 validation_failed naming the parameter', async () => {
    const response = await partner.list([['status', 'pending']]);
    expectErrorBody(response, 400, 'validation_failed');
    expect(response.body.details.join('\n')).toMatch(/^query\.status/m);
  });
});
