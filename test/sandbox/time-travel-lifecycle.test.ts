/**
 * Sandbox time travel through a whole lifecycle (issue 26 item 2): review, acceptance, envelope,
 * signatures and activation with its ledger entries, termination on the termination date and
 * archiving a year later, each at the simulated time it was due, in history, ledger and events.
 */
import { todayInSaoPaulo } from '../../src/database/column-values';
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { advance, DAY_MS, eventsOf, plus, REVIEWER, SYSTEM } from './time-travel-support';

const world = useTestApp({ ENVIRONMENT: 'sandbox' }, { agencies: 1 });
const partner = asPartner(world);

test('When a partner advances a guarantee through activation, termination and archiving, then each step happens at its simulated time', async () => {
  const created = await partner.newGuarantee(); // setupFee 150, installment 456.04
  const first = await advance(partner, created.id, { by: 'P10D' });
  expect(first.rentalInsurance.status).toBe('approved');
  const approved = await partner.current(created.id);

  // The partner's own write on a travelled guarantee is stamped with the guarantee's time.
  const accepted = await partner.accept(created.id);
  expect(accepted.status).toBe(200);
  const acceptedAt = accepted.body.updatedAt as string;
  expect(new Date(acceptedAt).getTime()).toBeGreaterThanOrEqual(new Date(first.now).getTime());
  expect(new Date(acceptedAt).getTime()).toBeLessThan(new Date(first.now).getTime() + 60_000);

  // Envelope 5 s after the accept, signers 5 s after the envelope: active.
  const second = await advance(partner, created.id, { by: 'PT1M' });
  expect(second.rentalInsurance.status).toBe('active');
  const envelopeAt = plus(acceptedAt, 5000);
  const activeAt = plus(acceptedAt, 10_000);
  expect(second.rentalInsurance.updatedAt).toBe(activeAt);

  // Activation's ledger entries are dated the simulated activation day, and shown from then on.
  const activationDay = todayInSaoPaulo(new Date(activeAt));
  expect(activationDay > todayInSaoPaulo()).toBe(true);
  const entries = await partner.statementEntries({ startDate: todayInSaoPaulo(), endDate: activationDay });
  expect(entries.status).toBe(200);
  expect(entries.body._embedded.statementEntries.map((entry: Record<string, unknown>) => [entry.date, entry.type, entry.amount])).toEqual([
    [activationDay, 'revenue_shared', 45.6], // newest first
    [activationDay, 'fee', -150],
  ]);

  // Termination when terminationDate begins in São Paulo (03:00 UTC), archiving 365 days later.
  const terminatedAt = `${approved.terminationDate}T03:00:00.000Z`;
  const third = await advance(partner, created.id, { to: plus(terminatedAt, 60_000) });
  expect(third.rentalInsurance).toMatchObject({ status: 'terminated', updatedAt: terminatedAt });
  const archivedAt = plus(terminatedAt, 365 * DAY_MS);
  const fourth = await advance(partner, created.id, { by: 'P366D' });
  expect(fourth.rentalInsurance).toMatchObject({ status: 'archived', updatedAt: archivedAt });

  const history = await partner.historyEntries(created.id);
  expect(history.map((entry) => [entry.creator.name, entry.status.code, entry.createdAt])).toEqual([
    [world.agency.displayName, 'under_review', created.createdAt],
    [REVIEWER.name, 'approved', approved.updatedAt],
    [world.agency.displayName, 'accepted', acceptedAt],
    [SYSTEM.name, 'accepted', envelopeAt],
    [SYSTEM.name, 'accepted', activeAt], // the contract document signs
    [SYSTEM.name, 'accepted', activeAt], // the tenant signs
    [SYSTEM.name, 'active', activeAt],
    [SYSTEM.name, 'terminated', terminatedAt],
    [SYSTEM.name, 'archived', archivedAt],
  ]);
  const times = history.map((entry) => entry.createdAt!);
  expect([...times].sort()).toEqual(times);

  const events = await eventsOf(world, created.id);
  expect(events.map((event) => [event.type, event.data.status ?? event.data.statementEntry?.type ?? null, event.occurredAt])).toEqual([
    ['rental_insurance.status_changed', 'under_review', created.createdAt],
    ['rental_insurance.status_changed', 'approved', approved.updatedAt],
    // The accept's entry holds the contract, at the guarantee's simulated time like the entry.
    ['rental_insurance.documents_attached', null, acceptedAt],
    ['rental_insurance.status_changed', 'accepted', acceptedAt],
    ['rental_insurance.signature_changed', null, acceptedAt],
    ['rental_insurance.signature_changed', null, envelopeAt],
    ['rental_insurance.signature_changed', null, activeAt],
    ['rental_insurance.signature_changed', null, activeAt],
    ['rental_insurance.status_changed', 'active', activeAt],
    ['statement_entry.created', 'fee', activeAt],
    ['statement_entry.created', 'revenue_shared', activeAt],
    ['rental_insurance.status_changed', 'terminated', terminatedAt],
    ['rental_insurance.status_changed', 'archived', archivedAt],
  ]);
});
