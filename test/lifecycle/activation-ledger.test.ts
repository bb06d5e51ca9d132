/** When a guarantee becomes active its setup fee is charged and the agency's revenue share credited. */
import request from 'supertest';
import { backOffice } from '../support/back-office';
import { createGuarantee } from '../support/factories';
import { partnerClient } from '../support/partner-client';
import { API, startTestApp, type TestApp } from '../support/test-app';
import { todayInSaoPaulo } from '../../src/database/column-values';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

async function activate(agency: Awaited<ReturnType<TestApp['newAgency']>>, overrides: Record<string, unknown>) {
  const office = backOffice(t);
  const partner = partnerClient(t, agency);
  const created = await createGuarantee(t, agency, overrides);
  await office.approve(created.id); // installment 456.04
  await partner.accept(created.id);
  await office.envelopeReady(created.id);
  await office.sign(created.id, 'document');
  await office.sign(created.id, 'tenant', created.tenant.cpfCnpj);
  expect((await partner.get(created.id)).body.status).toBe('active');
  return created;
}

test('When a guarantee with a setup fee becomes active, then a fee debit and a 10% revenue share credit are posted', async () => {
  const agency = await t.newAgency();
  const created = await activate(agency, { setupFee: 150 });
  const today = todayInSaoPaulo();
  const entries = await request(t.app)
    .get(`${API}/v1/financial/statement-entries?startDate=${today}&endDate=${today}`)
    .set(agency.auth);
  expect(entries.status).toBe(200);
  const rows = entries.body._embedded.statementEntries.map((entry: Record<string, unknown>) => [entry.type, entry.amount, entry.description]);
  expect(rows).toEqual(
    expect.arrayContaining([
      ['fee', -150, `Setup fee of rental insurance ${created.id}`],
      ['revenue_shared', 45.6, `Revenue share of rental insurance ${created.id}`],
    ]),
  );
  expect(rows).toHaveLength(2);
  const balance = await request(t.app).get(`${API}/v1/financial/balance`).set(agency.auth);
  expect(balance.body).toEqual({ balance: -104.4, credits: 45.6, debits: 150 });
});

test('When a guarantee without setup fee becomes active, then only the revenue share is credited', async () => {
  const agency = await t.newAgency();
  await activate(agency, { setupFee: null });
  const balance = await request(t.app).get(`${API}/v1/financial/balance`).set(agency.auth);
  expect(balance.body).toEqual({ balance: 45.6, credits: 45.6, debits: 0 });
});
