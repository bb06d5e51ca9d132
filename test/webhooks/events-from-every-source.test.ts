/**
 * Events come from every source of change, not only from the partner's writes: the scheduler's
 * time-driven transitions (expiry, termination, archiving), the sandbox's signers (envelope ready,
 * each signature, the guarantee active and its ledger entries) and a reviewer's comment. Each
 * event is written through the outbox: it is delivered to the agency's endpoint, signed and valid
 * against the document's `webhooks`, and GET /v1/events lists the same event, once.
 */
import { runSchedulerOnce } from '../../src/scheduler/scheduler';
import { scheduledJobs } from '../../src/sandbox/lifecycle-jobs';
import { backOffice, standardTerms } from '../support/back-office';
import { nextCpf } from '../support/factories';
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { useStaff } from '../back-office/ops-support';
import { activeGuarantee, DAY_MS, settle } from '../scheduler/scheduler-helpers';
import { payloadProblems, startReceiver, verify, webhookClient, type Received, type Receiver } from './webhook-support';

// A sandbox (loopback receivers allowed) whose reviewer and signers act at once when the scheduler runs.
const world = useTestApp(
  { WEBHOOK_DELIVERY_CONCURRENCY: '2', SCHEDULER_INTERVAL_MS: '0', SANDBOX_REVIEW_DELAY_SECONDS: '0', SANDBOX_SIGNING_DELAY_SECONDS: '0' },
  { agencies: 1 },
);
const partner = asPartner(world);
const office = backOffice(world);
const hooks = webhookClient(world, () => world.agency);
const { ops } = useStaff(world, { name: 'Ana Revisora' });
let receiver: Receiver;
let secret: string;

beforeAll(async () => {
  receiver = await startReceiver();
  world.beforeClose(() => receiver.close());
  secret = (await hooks.register(receiver.url)).secret;
});

type Event = Received['event'];
const later = (days: number) => new Date(Date.now() + days * DAY_MS + 60_000);
const about = (event: Event) => (event.data['rentalInsurance'] as { id: number } | undefined)?.id ?? (event.data['rentalInsuranceId'] as number);

/** Every event of the agency that GET /v1/events lists now, page by page. */
async function feed(): Promise<Event[]> {
  const events: Event[] = [];
  let response = await hooks.events({ limit: 200 });
  for (;;) {
    expect(response.status).toBe(200);
    events.push(...(response.body._embedded.events as Event[]));
    if (response.body._embedded.events.length === 0) return events;
    response = await asPartner(world).follow(response.body._links.next.href);
  }
}

/**
 * The events about guarantee `id` that `wanted` selects, in the feed's order, once each is delivered
 * (signed, valid against the document) and listed by the feed exactly once, identical to what was
 * delivered; there must be exactly `count` of them.
 */
async function eventsAbout(id: number, count: number, wanted: (event: Event) => boolean): Promise<Event[]> {
  const chosen = (all: Received[]) => all.filter((received) => about(received.event) === id && wanted(received.event));
  const delivered = chosen(await receiver.waitFor((all) => chosen(all).length >= count));
  expect(delivered).toHaveLength(count);
  for (const received of delivered) {
    expect(verify(secret, received)).toEqual(received.event);
    expect(payloadProblems(received.event)).toEqual([]);
    expect(received.event.agencyId).toBe(world.agency.companyId);
  }
  // The feed shows an event once every older transaction has ended: it is read until all are there.
  let listed: Event[] = [];
  for (let i = 0; i < 50; i++) {
    listed = (await feed()).filter((event) => about(event) === id && wanted(event));
    if (listed.length >= count) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(listed).toEqual(expect.arrayContaining(delivered.map((received) => received.event)));
  expect(listed).toHaveLength(count);
  return listed;
}

const statusMove = (from: string, to: string) => (event: Event) =>
  event.type === 'rental_insurance.status_changed' && event.data['previousStatus'] === from && event.data['status'] === to;

describe('When the scheduler moves a guarantee because time passed', () => {
  it('then expiring an approved proposal emits its status change, once', async () => {
    const created = await partner.newGuarantee();
    await office.approve(created.id);
    await runSchedulerOnce(world.db, world.config, scheduledJobs(world.config), later(30));
    await runSchedulerOnce(world.db, world.config, scheduledJobs(world.config), later(31));
    const [expired] = await eventsAbout(created.id, 1, statusMove('approved', 'expired'));
    expect(expired!.data).toMatchObject({ comment: 'The proposal expired without an answer.', rentalInsurance: { status: 'expired' } });
  });

  it('then terminating at the termination date, and archiving after the retention period, each emit their status change', async () => {
    const created = await activeGuarantee(world, world.agency, { ...standardTerms, terminationDate: '2030-03-10' });
    const config = { ...world.config, ARCHIVE_AFTER_DAYS: 36_500 };
    await runSchedulerOnce(world.db, config, scheduledJobs(config), new Date('2030-03-10T03:00:00Z'));
    const [terminated] = await eventsAbout(created.id, 1, statusMove('active', 'terminated'));
    expect(terminated!.data).toMatchObject({ comment: 'The guarantee was terminated.', rentalInsurance: { status: 'terminated' } });

    await runSchedulerOnce(world.db, world.config, scheduledJobs(world.config), later(366));
    const [archived] = await eventsAbout(created.id, 1, statusMove('terminated', 'archived'));
    expect(archived!.data).toMatchObject({ comment: 'The guarantee was archived.', rentalInsurance: { status: 'archived' } });
  });
});

describe('When the sandbox signers sign by themselves', () => {
  it('then the envelope, every signature, the activation and its ledger entries each emit their events', async () => {
    const coTenant = nextCpf();
    const created = await partner.newGuarantee({ coTenants: [{ cpfCnpj: coTenant, name: 'João Pereira' }] });
    await settle(world);
    expect((await partner.accept(created.id)).status).toBe(200);
    await settle(world);
    expect((await partner.current(created.id)).status).toBe('active');

    const statuses = (event: Event) => (event.data['signatures'] as Array<{ status: string }>).map((record) => record.status);
    // The partner's accept made the records (all pending); what came after is the signers'.
    const signatureEvents = await eventsAbout(
      created.id,
      4,
      (event) => event.type === 'rental_insurance.signature_changed' && statuses(event).some((status) => status !== 'pending'),
    );
    // In the feed's order: the envelope, then one signer after the other.
    expect(signatureEvents.map((event) => [event.data['comment'], statuses(event)])).toEqual([
      ['Signing envelope ready; signers invited.', ['awaiting_signature', 'awaiting_signature', 'awaiting_signature']],
      ['The contract document signed.', ['signed', 'awaiting_signature', 'awaiting_signature']],
      [expect.stringMatching(/^Signer .* signed\.$/), ['signed', 'signed', 'awaiting_signature']],
      ['Signer João Pereira signed.', ['signed', 'signed', 'signed']],
    ]);
    const [active] = await eventsAbout(created.id, 1, statusMove('accepted', 'active'));
    expect(active!.data).toMatchObject({ comment: 'Every signature collected; the guarantee is active.', rentalInsurance: { status: 'active' } });
    const entries = await eventsAbout(created.id, 2, (event) => event.type === 'statement_entry.created');
    expect(entries.map((event) => (event.data['statementEntry'] as { type: string }).type).sort()).toEqual(['fee', 'revenue_shared']);
  });
});

describe('When a reviewer comments', () => {
  it('then the comment emits its comment event, under the reviewer’s name', async () => {
    const created = await partner.newGuarantee();
    const comment = 'Documentação recebida; análise em andamento.';
    const posted = await ops.post(`/v1/rental-insurances/${created.id}/comments`, { comment });
    expect(posted.status).toBe(201);
    const [event] = await eventsAbout(created.id, 1, (candidate) => candidate.type === 'rental_insurance.comment_added');
    expect(posted.body).toMatchObject({ comment, creator: { name: 'Ana Revisora', serviceAccount: false } });
    // The event carries the history entry exactly as the reviewer's answer showed it.
    expect(event!.data).toEqual({ rentalInsuranceId: created.id, historyEntry: posted.body });
  });
});
