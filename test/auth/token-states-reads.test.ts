/**
 * The pipeline resolves every request's token to a principal before anything else, from this
 * process's cache or the database (src/auth/). Whatever the read, a token that is unknown, expired,
 * revoked (after it was cached) or short of the scope must be answered 401 (or 403): never the
 * guarantee, never 404, never an empty page, never a validation error.
 */
import { todayInSaoPaulo } from '../../src/database/column-values';
import { addDays } from '../../src/financial/date-range';
import { expectErrorBody } from '../support/error-body';
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { expectRefused, READ, tokenStates } from './spoilt-tokens';

const world = useTestApp();
const { agencyWithGuarantee, TOKEN_STATES } = tokenStates(world);

describe.each(TOKEN_STATES)('When get or list is called with %s', (_state, spoil, status, code) => {
  test(`then reading an existing guarantee is ${status} ${code}, not the guarantee`, async () => {
    const { agency, id } = await agencyWithGuarantee();
    const spoilt = await spoil(agency);
    expectRefused(await asPartner(world, spoilt).get(id), status, code);
    expectRefused(await asPartner(world, spoilt).get(id).set({ 'If-None-Match': 'W/"1"' }), status, code);
  });

  test(`then reading a guarantee that does not exist, or an id that names nothing, is ${status}, not 404`, async () => {
    const { agency } = await agencyWithGuarantee();
    const spoilt = await spoil(agency);
    expectRefused(await asPartner(world, spoilt).get(999_999_999), status, code);
    expectRefused(await asPartner(world, spoilt).get('not-a-number'), status, code);
  });

  test(`then a list, whether it finds rows or not and on any page, is ${status}, not a page`, async () => {
    const { agency, tenantCpf } = await agencyWithGuarantee();
    const spoilt = await spoil(agency);
    expectRefused(await asPartner(world, spoilt).list(), status, code);
    expectRefused(await asPartner(world, spoilt).list([['tenantCpfCnpj', tenantCpf]]), status, code);
    expectRefused(await asPartner(world, spoilt).list([['propertyExternalId', 'NOTHING-MATCHES']]), status, code);
    expectRefused(await asPartner(world, spoilt).list([['page', 1]]), status, code);
    expectRefused(await asPartner(world, spoilt).list([['tenantName', 'a']]), status, code);
  });

  test(`then the history and the signatures of an existing guarantee, or of none, are ${status}`, async () => {
    const { agency, id } = await agencyWithGuarantee();
    const spoilt = await spoil(agency);
    for (const target of [id, 999_999_999, 'not-a-number']) {
      expectRefused(await asPartner(world, spoilt).history(target, {}), status, code);
      expectRefused(await asPartner(world, spoilt).signatures(target, {}), status, code);
    }
  });

  test(`then a list with a query value that cannot be stored is ${status}, not 400`, async () => {
    const { agency } = await agencyWithGuarantee();
    const spoilt = await spoil(agency);
    expectRefused(await asPartner(world, spoilt).list([['propertyExternalId', 'nul\u0000here']]), status, code);
  });
});

describe.each(TOKEN_STATES)('When the financial figures are read with %s', (_state, spoil, status, code) => {
  test(`then balance, daily summaries and statement entries are each ${status} ${code}, whatever the range or page, never figures`, async () => {
    const { agency } = await agencyWithGuarantee();
    const spoilt = await spoil(agency);
    expectRefused(await asPartner(world, spoilt).balance(), status, code);
    const today = todayInSaoPaulo();
    for (const [startDate, endDate] of [
      [addDays(today, -30), today],
      [addDays(today, 10), addDays(today, 20)],
      ['2026-13-01', today],
    ]) {
      const summaries = await asPartner(world, spoilt).dailySummaries({ startDate, endDate });
      expectRefused(summaries, status, code);
      for (const extra of [{}, { page: 3 }, { type: 'fee' }, { type: 'no-such-type' }]) {
        const entries = await asPartner(world, spoilt).statementEntries({ startDate, endDate, ...extra });
        expectRefused(entries, status, code);
      }
    }
  });
});

describe('When get and list are called with a valid token', () => {
  test('then the statement that checks the token answers as before: the guarantee, 304, 404 and pages', async () => {
    const { agency, id, tenantCpf } = await agencyWithGuarantee();
    const read = await asPartner(world, agency).get(id);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id, tenant: { cpfCnpj: tenantCpf } });
    expect(read.body).not.toHaveProperty('bearerToken');
    expect((await asPartner(world, agency).get(id).set({ 'If-None-Match': read.headers['etag']! })).status).toBe(304);
    expectErrorBody(await asPartner(world, agency).get(999_999_999), 404, 'not_found');
    expectErrorBody(await asPartner(world, agency).get('not-a-number'), 404, 'not_found');
    const page = await asPartner(world, agency).list();
    expect(page.status).toBe(200);
    expect(page.body.page).toEqual({ size: 20, totalElements: 1, totalPages: 1, number: 0 });
    expect(page.body._embedded.rentalInsurances).toHaveLength(1);
    expect(page.body._embedded.rentalInsurances[0]).not.toHaveProperty('bearerToken');
    const empty = await asPartner(world, agency).list([['propertyExternalId', 'NOTHING-MATCHES']]);
    expect(empty.status).toBe(200);
    expect(empty.body.page.totalElements).toBe(0);
    expect(empty.body._embedded.rentalInsurances).toEqual([]);
  });

  test('then the history and the signatures answer as before: the entries, and 404 for an id that names nothing', async () => {
    const { agency, id } = await agencyWithGuarantee();
    const history = await asPartner(world, agency).history(id, {});
    expect(history.status).toBe(200);
    expect(history.body._embedded.historyEntries).toHaveLength(1);
    expect(history.body._embedded.historyEntries[0]).toMatchObject({ status: { code: 'under_review' } });
    const signatures = await asPartner(world, agency).signatures(id, {});
    expect(signatures.status).toBe(200);
    expect(signatures.body._embedded.signatures).toEqual([]);
    expectErrorBody(await asPartner(world, agency).history(999999999, {}), 404, 'not_found');
    expectErrorBody(await asPartner(world, agency).signatures('abc', {}), 404, 'not_found');
  });

  test('then a read-only token reads, and a token whose scopes are extended in the database reads at once', async () => {
    const { agency, id } = await agencyWithGuarantee();
    await world.db.accessToken.updateMany({ where: { credentialId: agency.credentialId }, data: { scopes: [READ] } });
    expect((await asPartner(world, agency).get(id)).status).toBe(200);
    expect((await asPartner(world, agency).list()).status).toBe(200);
  });
});

describe('When the financial figures are read with a valid token', () => {
  test("then each answers 200 with the figures of the token's company", async () => {
    const agency = await world.newAgency();
    const partner = asPartner(world, agency);
    const balance = await partner.balance();
    expect(balance.status).toBe(200);
    expect(balance.body).toMatchObject({ balance: 0, credits: 0, debits: 0 });
    expect(balance.body).not.toHaveProperty('bearerToken');
    const today = todayInSaoPaulo();
    const days = await partner.dailySummaries({ startDate: addDays(today, -2), endDate: today });
    expect(days.status).toBe(200);
    expect(days.body).toHaveLength(3);
    const future = await partner.dailySummaries({ startDate: addDays(today, 10), endDate: addDays(today, 20) });
    expect(future.status).toBe(200);
    expect(future.body).toEqual([]);
    const entries = await partner.statementEntries({ startDate: addDays(today, -2), endDate: today });
    expect(entries.status).toBe(200);
    expect(entries.body.page).toEqual({ size: 20, totalElements: 0, totalPages: 0, number: 0 });
    expect(entries.body._embedded.statementEntries).toEqual([]);
  });
});
