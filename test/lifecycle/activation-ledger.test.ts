/** When a guarantee becomes active its setup fee is charged and the agency's revenue share credited. */
import { backOffice } from '../support/back-office';
import { asPartner } from '../support/partner-api';
import { useTestApp, type Agency } from '../support/test-app';
import { todayInSaoPaulo } from '../../src/database/column-values';

const world = useTestApp();

async function activate(agency: Agency, overrides: Record<string, unknown>) {
  const office = backOffice(world);
  const partner = asPartner(world, agency);
  const created = await partner.newGuarantee(overrides);
  await office.approve(created.id); // installment 456.04
  await partner.accept(created.id);
  await office.envelopeReady(created.id);
  await office.sign(created.id, 'document');
  await office.sign(created.id, 'tenant', created.tenant.cpfCnpj);
  expect((await partner.get(created.id)).body.status).toBe('active');
  return created;
}

test('When a guarantee with a setup fee becomes active, then a fee debit and a 10% revenue share credit are posted', async () => {
  const agency = await world.newAgency();
  const partner = asPartner(world, agency);
  const created = await activate(agency, { setupFee: 150 });
  const today = todayInSaoPaulo();
  const entries = await partner.statementEntries({ startDate: today, endDate: today });
  expect(entries.status).toBe(200);
  const rows = entries.body._embedded.statementEntries.map((entry: Record<string, unknown>) => [entry.type, entry.amount, entry.description]);
  expect(rows).toEqual(
    expect.arrayContaining([
      ['fee', -150, `Setup fee of rental insurance ${created.id}`],
      ['revenue_shared', 45.6, `Revenue share of rental insurance ${created.id}`],
    ]),
  );
  expect(rows).toHaveLength(2);
  const balance = await partner.balance();
  expect(balance.body).toEqual({ balance: -104.4, credits: 45.6, debits: 150 });
});

test('When a guarantee without setup fee becomes active, then only the revenue share is credited', async () => {
  const agency = await world.newAgency();
  await activate(agency, { setupFee: null });
  const balance = await asPartner(world, agency).balance();
  expect(balance.body).toEqual({ balance: 45.6, credits: 45.6, debits: 0 });
});
