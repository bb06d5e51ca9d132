/**
 * A webhook handler to copy: verifies each delivery with verifyWebhook, answers at once, skips an
 * event it already handled, and acts by event type (the compiler knows each type's payload).
 *
 *   RG_WEBHOOK_SECRETS=whsec_... PORT=3000 node dist/webhook-handler.js
 *
 * RG_WEBHOOK_SECRETS: the endpoint's secret, or both (comma-separated) while you rotate it. On a
 * laptop, `rental-guarantee listen --forward-to http://localhost:3000/webhooks` prints a local
 * secret and forwards the agency's events here, signed the same way.
 */
import { isRentalInsuranceStatusChanged, verifyWebhook, WebhookVerificationError, type WebhookEvent } from '@rental-guarantee/partner-client';
import http from 'node:http';

const secrets = (process.env.RG_WEBHOOK_SECRETS ?? '').split(',').filter(Boolean);
if (secrets.length === 0) throw new Error('set RG_WEBHOOK_SECRETS (the endpoint secret, whsec_...; two, comma-separated, during a rotation)');
const log = (message: string) => console.log(`[webhooks] ${message}`);

// Deliveries come at least once: remember what was handled. In production keep this in your
// database, in the same transaction as the work (a process restart forgets a Set).
const handled = new Set<string>();

async function handle(event: WebhookEvent): Promise<void> {
  if (isRentalInsuranceStatusChanged(event)) {
    const { rentalInsurance, previousStatus, status } = event.data;
    log(`rental insurance ${rentalInsurance.id} (${rentalInsurance.externalId ?? 'no external id'}): ${previousStatus ?? 'new'} -> ${status}`);
    return;
  }
  switch (event.type) {
    case 'rental_insurance.signature_changed':
      log(`rental insurance ${event.data.rentalInsurance.id}: signatures ${event.data.signatures.map((s) => `${s.role} ${s.status}`).join(', ')}`);
      break;
    case 'rental_insurance.comment_added':
      log(`rental insurance ${event.data.rentalInsuranceId}: comment by ${event.data.historyEntry.creator.name}`);
      break;
    case 'rental_insurance.documents_attached': {
      // A reviewer's documents (serviceAccount false) are what the review asks of you: a checklist,
      // a form to return. Download them with client.documents.downloadDocument. The contract the
      // signers sign arrives this way too, on the accept's entry.
      const { creator, documents } = event.data.historyEntry;
      const from = creator.serviceAccount ? 'your integration' : `reviewer ${creator.name}`;
      log(`rental insurance ${event.data.rentalInsuranceId}: ${documents.map((document) => document.fileName).join(', ')} attached by ${from}`);
      break;
    }
    case 'rental_insurance.contract_reissued':
      log(`rental insurance ${event.data.rentalInsurance.id}: contract reissued, ${event.data.signatures.length} signatures pending`);
      break;
    case 'statement_entry.created':
      log(`statement entry ${event.data.statementEntry.id}: ${event.data.statementEntry.type} ${event.data.statementEntry.amount}`);
      break;
    case 'webhook.test':
      log(`test event for endpoint ${event.data.endpointId}`);
      break;
  }
}

const server = http.createServer((request, response) => {
  if (request.method !== 'POST' || request.url !== '/webhooks') return void response.writeHead(404).end();
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    let event: WebhookEvent;
    try {
      // The raw bytes as received: a body parsed and serialised again would not verify.
      event = verifyWebhook(Buffer.concat(chunks), request.headers, secrets);
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      log(`refused a delivery: ${error.reason}`);
      return void response.writeHead(400).end();
    }
    // Answer within 10 s, then work: a slow answer is a failed attempt, sent again later.
    response.writeHead(204).end();
    if (handled.has(event.id)) return log(`already handled ${event.id}`);
    handled.add(event.id);
    handle(event).catch((error: unknown) => log(`handling ${event.id} failed: ${String(error)}`));
  });
});
server.listen(Number(process.env.PORT ?? 3000), () => log(`listening on http://localhost:${process.env.PORT ?? 3000}/webhooks`));
