/**
 * verifyWebhook against deliveries the real service made: an endpoint registered on a local
 * receiver gets the event of a guarantee's creation, which verifies and comes back typed; the same
 * delivery with one byte changed, under another secret, or replayed 6 minutes later is refused;
 * after a rotation both live secrets verify, alone or in a list.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  isRentalInsuranceStatusChanged,
  isWebhookTest,
  verifyWebhook,
  WebhookVerificationError,
  type WebhookEvent,
  type WebhookRefusal,
} from '../src/index.js';
import { newGuarantee, startHarness, type Harness } from './harness.js';
import { startReceiver, type ReceivedRequest, type TestReceiver } from './receiver.js';

let h: Harness;
let receiver: TestReceiver;
let endpointId: string;
let secret: string;
before(async () => {
  h = await startHarness('client-webhooks');
  receiver = await startReceiver();
  const created = await h.client().api.POST('/v1/webhook-endpoints', {
    params: { header: { 'Idempotency-Key': randomUUID() } },
    body: { url: receiver.url, eventTypes: ['rental_insurance.status_changed'] },
  });
  assert.equal(created.response.status, 201);
  endpointId = created.data!.id;
  secret = created.data!.secret!;
});
after(async () => {
  await receiver?.close();
  await h?.close();
});

const typeOf = (request: ReceivedRequest) => (JSON.parse(request.rawBody.toString('utf8')) as { type: string }).type;
const otherSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

function refusal(run: () => unknown): WebhookRefusal {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof WebhookVerificationError, `expected a WebhookVerificationError, got ${String(error)}`);
    return error.reason;
  }
  assert.fail('the delivery was accepted');
}

describe('verifyWebhook', () => {
  let delivery: ReceivedRequest;
  let guaranteeId: number;
  before(async () => {
    guaranteeId = (await h.client().rentalInsurances.create(newGuarantee())).data.id;
    const received = await receiver.waitFor((all) => all.some((request) => typeOf(request) === 'rental_insurance.status_changed'));
    delivery = received.find((request) => typeOf(request) === 'rental_insurance.status_changed')!;
  });

  test('a real delivery verifies (Buffer or string body, Node or Fetch headers) and comes back as its typed event', () => {
    const event: WebhookEvent = verifyWebhook(delivery.rawBody, delivery.headers, secret);
    assert.ok(isRentalInsuranceStatusChanged(event));
    // Typed: no cast needed to reach the payload of this event type.
    assert.equal(event.data.rentalInsurance.id, guaranteeId);
    assert.equal(event.data.previousStatus, null);
    assert.equal(event.data.status, 'under_review');
    assert.equal(event.id, delivery.headers['webhook-id']);
    const fetchHeaders = new Headers(Object.entries(delivery.headers).map(([name, value]) => [name, String(value)] as [string, string]));
    assert.deepEqual(verifyWebhook(delivery.rawBody.toString('utf8'), fetchHeaders, [secret]), event);
  });

  test('a tampered body, another secret, a replay 6 minutes later and missing headers are refused, each with its reason', () => {
    const tampered = Buffer.from(delivery.rawBody.toString('utf8').replace('"under_review"', '"approved"'));
    assert.notDeepEqual(tampered, delivery.rawBody);
    assert.equal(
      refusal(() => verifyWebhook(tampered, delivery.headers, secret)),
      'bad_signature',
    );
    assert.equal(
      refusal(() => verifyWebhook(delivery.rawBody, delivery.headers, otherSecret())),
      'bad_signature',
    );
    assert.equal(
      refusal(() => verifyWebhook(delivery.rawBody, delivery.headers, secret, { now: () => Date.now() + 6 * 60_000 })),
      'stale_timestamp',
    );
    // Within a tolerance the receiver chooses, the same delivery verifies.
    assert.ok(verifyWebhook(delivery.rawBody, delivery.headers, secret, { now: () => Date.now() + 6 * 60_000, toleranceSeconds: 600 }));
    const { 'webhook-signature': _signature, ...unsigned } = delivery.headers;
    assert.equal(
      refusal(() => verifyWebhook(delivery.rawBody, unsigned, secret)),
      'missing_headers',
    );
    assert.throws(() => verifyWebhook(JSON.parse(delivery.rawBody.toString('utf8')) as string, delivery.headers, secret), TypeError);
  });

  test('after a rotation the delivery carries two signatures: the new secret, the old one, or a list holding either verifies', async () => {
    const rotated = await h.client().api.POST('/v1/webhook-endpoints/{endpointId}/rotate-secret', {
      params: { path: { endpointId }, header: { 'Idempotency-Key': randomUUID() } },
    });
    assert.equal(rotated.response.status, 200);
    const newSecret = rotated.data!.secret!;
    const sent = await h.client().api.POST('/v1/webhook-endpoints/{endpointId}/test', {
      params: { path: { endpointId }, header: { 'Idempotency-Key': randomUUID() } },
    });
    assert.ok(sent.response.ok, `test event: ${sent.response.status}`);
    const test = (await receiver.waitFor((all) => all.some((request) => typeOf(request) === 'webhook.test'))).find(
      (r) => typeOf(r) === 'webhook.test',
    )!;
    assert.equal(String(test.headers['webhook-signature']).split(' ').length, 2);
    for (const secrets of [[newSecret], [secret], [otherSecret(), newSecret]]) {
      const event = verifyWebhook(test.rawBody, test.headers, secrets);
      assert.ok(isWebhookTest(event));
      assert.equal(event.data.endpointId, endpointId);
    }
    assert.equal(
      refusal(() => verifyWebhook(test.rawBody, test.headers, [otherSecret(), otherSecret()])),
      'bad_signature',
    );
  });
});
