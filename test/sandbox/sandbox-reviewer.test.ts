/**
 * The sandbox reviewer (ENVIRONMENT=sandbox): a partner drives a guarantee with the partner API
 * alone; the scheduler's sandbox jobs review, prepare the envelope and sign by themselves, with the
 * outcome chosen by the cents of rentalAmount (partner document, "Testing in the sandbox").
 */
import { runSchedulerOnce } from '../../src/scheduler/scheduler';
import { scheduledJobs } from '../../src/sandbox/lifecycle-jobs';
import { todayInSaoPaulo } from '../../src/database/column-values';
import { backOffice } from '../support/back-office';
import { nextCpf } from '../support/factories';
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { processed, settle } from '../scheduler/scheduler-helpers';

const world = useTestApp({ ENVIRONMENT: 'sandbox', SANDBOX_REVIEW_DELAY_SECONDS: '0', SANDBOX_SIGNING_DELAY_SECONDS: '0' }, { agencies: 1 });
const partner = asPartner(world);

const REVIEWER = { name: 'Sandbox reviewer', serviceAccount: false };
const SYSTEM = { name: 'system', serviceAccount: true };
const pad = (value: number) => String(value).padStart(2, '0');

/** First day of the next month in São Paulo and 30 months after it, computed independently. */
function expectedBillingDates(): [string, string] {
  const [year, month] = todayInSaoPaulo().split('-').map(Number) as [number, number];
  const start = month === 12 ? `${year + 1}-01-01` : `${year}-${pad(month + 1)}-01`;
  const endIndex = (month === 12 ? year + 1 : year) * 12 + (month % 12) + 30;
  return [start, `${Math.floor(endIndex / 12)}-${pad((endIndex % 12) + 1)}-01`];
}

test('When a partner creates a guarantee with whole reais and accepts the proposal, then the sandbox alone takes it to active', async () => {
  const coTenant = nextCpf();
  const created = await partner.newGuarantee({
    rentalAmount: 3500,
    condoFee: 850,
    propertyTax: 210.35,
    otherFees: null,
    coTenants: [{ cpfCnpj: coTenant, name: 'João Pereira' }],
  });
  expect(created.status).toBe('under_review');

  await settle(world);
  const approved = await partner.current(created.id);
  const [startBillingDate, terminationDate] = expectedBillingDates();
  expect(approved).toMatchObject({
    status: 'approved',
    installmentAmount: 456.04,
    coverageLimit: 136810.5,
    rentCoverageLimit: 105000,
    remainingCoverageAmount: 136810.5,
    rentRemainingCoverageAmount: 105000,
    startBillingDate,
    terminationDate,
  });
  const review = (await partner.historyEntries(created.id))[1];
  expect(review).toMatchObject({ creator: REVIEWER, previousStatus: { code: 'under_review' }, status: { code: 'approved' } });
  expect(review!.comment).toMatch(/^Sandbox: proposal approved automatically\./);

  const accepted = await partner.accept(created.id);
  expect(accepted.status).toBe(200);
  expect(accepted.body.status).toBe('accepted');

  await settle(world);
  expect((await partner.current(created.id)).status).toBe('active');
  const signatures = (await partner.signatureRecords(created.id)) as Array<{ role: string; status: string; url?: string }>;
  expect(signatures.map((record) => [record.role, record.status])).toEqual([
    ['document', 'signed'],
    ['tenant', 'signed'],
    ['co_tenant', 'signed'],
  ]);
  for (const record of signatures) expect(record.url).toMatch(/^https:\/\/sandbox\.sign\.rentalguarantee\.example\/envelopes\//);

  const history = await partner.historyEntries(created.id);
  expect(history.map((entry) => [entry.creator.name, entry.status.code, entry.comment])).toEqual([
    [world.agency.displayName, 'under_review', 'Rental insurance created; review started.'],
    ['Sandbox reviewer', 'approved', expect.any(String)],
    [world.agency.displayName, 'accepted', expect.stringContaining('accepted')],
    ['system', 'accepted', 'Signing envelope ready; signers invited.'],
    ['system', 'accepted', 'The contract document signed.'],
    ['system', 'accepted', expect.stringMatching(/^Signer .* signed\.$/)],
    ['system', 'accepted', 'Signer João Pereira signed.'],
    ['system', 'active', 'Every signature collected; the guarantee is active.'],
  ]);
  expect(history.slice(3).every((entry) => entry.creator.serviceAccount)).toBe(true);
  expect(await settle(world)).toBe(0);
});

test('When rentalAmount ends in .01, then the sandbox reviewer declines the proposal', async () => {
  const created = await partner.newGuarantee({ rentalAmount: 3500.01 });
  await settle(world);
  expect((await partner.current(created.id)).status).toBe('declined');
  expect((await partner.historyEntries(created.id))[1]).toMatchObject({
    creator: REVIEWER,
    comment: 'Sandbox: proposal declined automatically because rentalAmount ends in .01.',
    status: { code: 'declined' },
  });
});

test('When rentalAmount ends in .02, then information is requested with a comment; after the partner changes data the sandbox reviews again and approves', async () => {
  const created = await partner.newGuarantee({ rentalAmount: 2800.02 });
  await settle(world);
  const requested = await partner.current(created.id);
  expect(requested.status).toBe('information_requested');
  const request = (await partner.historyEntries(created.id))[1]!;
  expect(request).toMatchObject({ creator: REVIEWER, status: { code: 'information_requested' } });
  expect(request.comment).toMatch(/rentalAmount ends in \.02.*PATCH.*tenant\.profession/);

  const patched = await partner.patch(created.id, { tenant: { profession: 'Arquiteta' } }, { ifMatch: requested.etag });
  expect(patched.status).toBe(200);
  expect(patched.body.status).toBe('under_review');
  expect(patched.headers['service-effects']).toBe('review_started');

  await settle(world);
  expect((await partner.current(created.id)).status).toBe('approved');
  const reviews = (await partner.historyEntries(created.id)).filter((entry) => entry.creator.name === 'Sandbox reviewer');
  expect(reviews.map((entry) => entry.status.code)).toEqual(['information_requested', 'approved']);
});

test('When rentalAmount ends in .03, then the proposal is approved but the tenant refuses to sign and the guarantee stays accepted', async () => {
  const created = await partner.newGuarantee({ rentalAmount: 1999.03 });
  await settle(world);
  expect((await partner.current(created.id)).status).toBe('approved');
  expect((await partner.historyEntries(created.id))[1]!.comment).toMatch(/tenant will refuse to sign/);
  await partner.accept(created.id);

  await settle(world);
  expect((await partner.current(created.id)).status).toBe('accepted');
  const signatures = (await partner.signatureRecords(created.id)) as Array<{ role: string; status: string }>;
  expect(signatures.map((record) => [record.role, record.status])).toEqual([
    ['document', 'signed'],
    ['tenant', 'refused'],
  ]);
  const last = (await partner.historyEntries(created.id)).at(-1)!;
  expect(last).toMatchObject({ creator: SYSTEM, status: { code: 'accepted' } });
  expect(last.comment).toMatch(/refused to sign; reviewers notified\.$/);

  // A monetary change starts a new review; with other cents the sandbox then goes all the way.
  const current = await partner.current(created.id);
  const patched = await partner.patch(created.id, { rentalAmount: 1999 }, { ifMatch: current.etag });
  expect(patched.headers['service-effects']).toBe('review_started, contract_invalidated');
  await settle(world);
  await partner.accept(created.id);
  await settle(world);
  expect((await partner.current(created.id)).status).toBe('active');
});

test('When rentalAmount ends in .04, then the proposal is approved and expires SANDBOX_PROPOSAL_VALIDITY_SECONDS later unless accepted', async () => {
  const created = await partner.newGuarantee({ rentalAmount: 1500.04 });
  await runSchedulerOnce(world.db, world.config, scheduledJobs(world.config));
  expect((await partner.current(created.id)).status).toBe('approved');
  expect((await partner.historyEntries(created.id))[1]!.comment).toMatch(/expires 60 seconds after approval unless accepted/);

  await runSchedulerOnce(world.db, world.config, scheduledJobs(world.config), new Date(Date.now() + 30_000));
  expect((await partner.current(created.id)).status).toBe('approved');

  const summary = await runSchedulerOnce(world.db, world.config, scheduledJobs(world.config), new Date(Date.now() + 61_000));
  expect(processed(summary, 'sandbox_expire_proposals')).toBeGreaterThanOrEqual(1);
  expect((await partner.current(created.id)).status).toBe('expired');
  expect((await partner.historyEntries(created.id)).at(-1)).toMatchObject({ creator: SYSTEM, status: { code: 'expired' } });
  expect((await partner.accept(created.id)).status).toBe(409);
});

test('When the sandbox delays are 5 seconds, then nothing happens before they pass', async () => {
  const config = { ...world.config, SANDBOX_REVIEW_DELAY_SECONDS: 5, SANDBOX_SIGNING_DELAY_SECONDS: 5 };
  const created = await partner.newGuarantee();
  await runSchedulerOnce(world.db, config, scheduledJobs(config), new Date(Date.now() + 3000));
  expect((await partner.current(created.id)).status).toBe('under_review');
  await runSchedulerOnce(world.db, config, scheduledJobs(config), new Date(Date.now() + 6000));
  expect((await partner.current(created.id)).status).toBe('approved');

  await partner.accept(created.id);
  await runSchedulerOnce(world.db, config, scheduledJobs(config), new Date(Date.now() + 3000));
  const pending = (await partner.signatureRecords(created.id)) as Array<{ status: string }>;
  expect(pending.map((record) => record.status)).toEqual(['pending', 'pending']);
  // Simulated time runs ahead of the envelope's real timestamp, so envelope and signatures both come due here.
  await runSchedulerOnce(world.db, config, scheduledJobs(config), new Date(Date.now() + 6000));
  expect((await partner.current(created.id)).status).toBe('active');

  // The signers answer only SANDBOX_SIGNING_DELAY_SECONDS after the envelope is ready (here made ready by staff).
  const second = await partner.newGuarantee();
  await runSchedulerOnce(world.db, config, scheduledJobs(config), new Date(Date.now() + 6000));
  await partner.accept(second.id);
  await backOffice(world).envelopeReady(second.id);
  await runSchedulerOnce(world.db, config, scheduledJobs(config), new Date(Date.now() + 3000));
  const ready = (await partner.signatureRecords(second.id)) as Array<{ status: string }>;
  expect(ready.map((record) => record.status)).toEqual(['awaiting_signature', 'awaiting_signature']);
  await runSchedulerOnce(world.db, config, scheduledJobs(config), new Date(Date.now() + 6000));
  expect((await partner.current(second.id)).status).toBe('active');
});
