/**
 * The history is read in pages like every list (oldest first, stable pages), and an agency's
 * comments of the day are capped: beyond the quota a comment is 429 with Retry-After and stores
 * nothing, while other agencies keep commenting.
 */
import { expectErrorBody } from '../support/error-body';
import { newKey } from '../support/factories';
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';

const world = useTestApp({ COMMENT_QUOTA_PER_DAY: '3' });

describe('When a partner reads a long history', () => {
  test('then it comes in pages of the requested size, oldest first, with links and exact totals', async () => {
    const agency = await world.newAgency();
    const partner = asPartner(world, agency);
    const { id } = await partner.newGuarantee();
    for (const text of ['one', 'two', 'three']) expect((await partner.comment(id, text)).status).toBe(201);

    const first = await partner.history(id, { page: 0, pageSize: 2 });
    expect(first.status).toBe(200);
    expect(first.body.page).toEqual({ size: 2, totalElements: 4, totalPages: 2, number: 0 });
    expect(first.body._embedded.historyEntries.map((entry: { comment: string }) => entry.comment)).toEqual([
      'Rental insurance created; review started.',
      'one',
    ]);
    expect(first.body._links.next.href).toMatch(new RegExp(`/v1/rental-insurances/${id}/history\\?page=1&pageSize=2$`));
    const second = await partner.history(id, { page: 1, pageSize: 2 });
    expect(second.body._embedded.historyEntries.map((entry: { comment: string }) => entry.comment)).toEqual(['two', 'three']);
    expect(second.body._links.next).toBeUndefined();
    const beyond = await partner.history(id, { page: 5, pageSize: 2 });
    expect(beyond.body._embedded.historyEntries).toEqual([]);
    expect(beyond.body.page).toEqual({ size: 2, totalElements: 4, totalPages: 2, number: 5 });
    // Clamped to the history's maximum page: 50 entries, 1 MiB at their longest (the contract's maxItems).
    expect((await partner.history(id, { page: 0, pageSize: 5000 })).body.page.size).toBe(50);
  });
});

describe('When an agency reaches its comments of the day', () => {
  test('then the next comment is 429 comment_quota_exceeded with Retry-After, stores nothing, and other agencies still comment', async () => {
    const agency = await world.newAgency();
    const partner = asPartner(world, agency);
    const [first, second] = [await partner.newGuarantee(), await partner.newGuarantee()];
    // The quota counts the agency's comments across its guarantees.
    for (const [id, text] of [
      [first.id, 'a'],
      [second.id, 'b'],
      [first.id, 'c'],
    ] as const)
      expect((await partner.comment(id, text)).status).toBe(201);
    const key = newKey();
    const refused = await partner.comment(second.id, 'one too many', { key });
    expectErrorBody(refused, 429, 'comment_quota_exceeded');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect((await partner.historyEntries(second.id)).map((entry) => entry.comment)).not.toContain('one too many');
    // Nothing was stored for the key either: the same request is refused again, not replayed.
    expectErrorBody(await partner.comment(second.id, 'one too many', { key }), 429, 'comment_quota_exceeded');

    const other = asPartner(world, await world.newAgency());
    const { id } = await other.newGuarantee();
    expect((await other.comment(id, 'still fine')).status).toBe(201);
  });
});
