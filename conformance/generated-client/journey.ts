/**
 * A short partner journey through a client generated from openapi/partner.yaml by a second
 * generator, @hey-api/openapi-ts (scripts/generated-client-journey.mjs generates it into ./sdk,
 * type-checks this file against it, then runs it against a fresh sandbox service). It uses the
 * generated SDK the way a partner would, with the document's advice for generated clients:
 * `_links.next.query` to page, `304` checked before `error`, headers read from `response.headers`,
 * a document attached from a `File` (multipart) and downloaded as a `Blob` (`parseAs: 'blob'`).
 * A document change that breaks any of this fails CI: at compile time (a type or name gone) or here.
 */
import { createHash, randomUUID } from 'node:crypto';
import { client } from './sdk/client.gen';
import {
  attachRentalInsuranceDocuments,
  createRentalInsurance,
  getRentalInsurance,
  getRentalInsuranceDocument,
  listEvents,
  listRentalInsuranceDocuments,
  listRentalInsurances,
  patchRentalInsurance,
} from './sdk/sdk.gen';
import type {
  Event,
  ListEventsData,
  RentalInsuranceCreate,
  RentalInsuranceStatusChangedWebhookPayload,
  WebhookTestWebhookPayload,
} from './sdk/types.gen';

const env = (name: string) => process.env[name] ?? fail(`set ${name}`);
function fail(message: string): never {
  throw new Error(message);
}
function check(condition: unknown, message: string): asserts condition {
  if (!condition) fail(message);
}
const step = (name: string) => console.log(`  ok   ${name}`);

// Webhook payload types keep the names the document promises (compile-time only).
export const describeEvent = (event: RentalInsuranceStatusChangedWebhookPayload | WebhookTestWebhookPayload) =>
  event.type === 'webhook.test' ? event.data.message : `${event.data.rentalInsurance.id}: ${event.data.status}`;

/** One page of the event feed (a function of its own: its type does not depend on the paging loop). */
const eventsPage = (query: ListEventsData['query']) => listEvents({ query });

async function token(): Promise<string> {
  const basic = Buffer.from(`${encodeURIComponent(env('RG_CLIENT_ID'))}:${encodeURIComponent(env('RG_CLIENT_SECRET'))}`).toString('base64');
  const response = await fetch(`${env('RG_AUTH_URL')}/oauth2/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  check(response.ok, `token: ${response.status}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

const guarantee = (propertyExternalId: string): RentalInsuranceCreate => ({
  externalId: `CTR-${randomUUID().slice(0, 8)}`,
  tenant: { cpfCnpj: '529.982.247-25', name: 'Maria José da Silva', email: 'maria.silva@example.com' },
  property: {
    externalId: propertyExternalId,
    type: 'apartment',
    address: { zipCode: '01310-100', street: 'Avenida Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP' },
  },
  rentalAmount: 3500,
});

async function main(): Promise<void> {
  const accessToken = await token();
  client.setConfig({ baseUrl: env('RG_BASE_URL'), auth: () => accessToken });
  step('token, and the generated client configured with it');

  const property = `IMV-${randomUUID()}`;
  const key = randomUUID();
  const body = guarantee(property);
  const created = await createRentalInsurance({ body, headers: { 'Idempotency-Key': key } });
  check(created.response.status === 201 && created.data, `create: ${created.response.status} ${JSON.stringify(created.error)}`);
  const etag = created.response.headers.get('etag');
  check(etag === 'W/"1"' && created.response.headers.get('idempotent-replay') === 'false', `create headers: ETag ${etag}`);
  const replay = await createRentalInsurance({ body, headers: { 'Idempotency-Key': key } });
  check(
    replay.data?.id === created.data.id && replay.response.headers.get('idempotent-replay') === 'true',
    'the same write again is answered by the replay',
  );
  step(`create ${created.data.id} (201, ETag ${etag}), and its replay (Idempotent-Replay: true, read from response.headers)`);

  const unchanged = await getRentalInsurance({ path: { id: created.data.id }, headers: { 'If-None-Match': etag } });
  // The document's advice: 304 first. Fetch says ok: false, and the generated client fills `error`.
  check(unchanged.response.status === 304, `If-None-Match: ${unchanged.response.status}`);
  step('If-None-Match answered 304, recognised before `error`');

  const patched = await patchRentalInsurance({
    path: { id: created.data.id },
    body: { condoFee: 900 },
    headers: { 'Idempotency-Key': randomUUID(), 'If-Match': etag },
  });
  check(patched.data?.condoFee === 900, `patch: ${patched.response.status} ${JSON.stringify(patched.error)}`);
  check(patched.response.headers.get('etag') === 'W/"2"', 'patch: ETag W/"2"');
  const stale = await patchRentalInsurance({
    path: { id: created.data.id },
    body: { condoFee: 1000 },
    headers: { 'Idempotency-Key': randomUUID(), 'If-Match': etag },
  });
  check(stale.response.status === 412 && stale.error?.code === 'precondition_failed', `stale If-Match: ${stale.response.status}`);
  step('merge patch with If-Match (200, W/"2"); a stale tag is a typed 412 precondition_failed');

  // A document: the multipart body from a File (its name is the part's filename), the bytes back as a Blob.
  const pdf = Buffer.from(`%PDF-1.4\n% generated client ${randomUUID()}\ntrailer << >>\n%%EOF\n`);
  const sha256 = createHash('sha256').update(pdf).digest('hex');
  const attached = await attachRentalInsuranceDocuments({
    path: { id: created.data.id },
    body: { file: [new File([pdf], 'comprovante-renda.pdf', { type: 'application/pdf' })], comment: 'Comprovante de renda.' },
    headers: { 'Idempotency-Key': randomUUID() },
  });
  check(attached.response.status === 201 && attached.data, `attach: ${attached.response.status} ${JSON.stringify(attached.error)}`);
  const document = attached.data.documents[0];
  check(
    document?.fileName === 'comprovante-renda.pdf' && document.sha256 === sha256,
    `attach: the entry lists ${JSON.stringify(attached.data.documents)}`,
  );
  const listedDocuments = await listRentalInsuranceDocuments({ path: { id: created.data.id } });
  check(
    listedDocuments.data?._embedded.documents.some((one) => one.id === document.id),
    'documents: the list holds the one attached',
  );
  const downloaded = await getRentalInsuranceDocument({ path: { id: created.data.id, documentId: document.id }, parseAs: 'blob' });
  check(downloaded.response.status === 200 && downloaded.data, `download: ${downloaded.response.status}`);
  const bytes = Buffer.from(await downloaded.data.arrayBuffer());
  const digest = /sha-256=:([^:]+):/.exec(downloaded.response.headers.get('repr-digest') ?? '')?.[1];
  check(createHash('sha256').update(bytes).digest('hex') === sha256, 'download: the bytes are the ones sent');
  check(digest !== undefined && Buffer.from(digest, 'base64').toString('hex') === sha256, 'download: Repr-Digest names their SHA-256');
  step(`document ${document.id} attached (multipart from a File), listed, downloaded as a Blob and checked against Repr-Digest`);

  const second = await createRentalInsurance({ body: guarantee(property), headers: { 'Idempotency-Key': randomUUID() } });
  check(second.data, `second create: ${second.response.status}`);
  const first = await listRentalInsurances({ query: { propertyExternalId: property, pageSize: 1 } });
  const next = first.data?._links.next;
  check(next, `list: no next link (${first.response.status})`);
  const page2 = await listRentalInsurances({ query: next.query });
  check(page2.data?.page.number === 1 && page2.data._embedded.rentalInsurances.length === 1, 'list: the next page by its query');
  const listed = [first.data!._embedded.rentalInsurances[0]!.id, page2.data._embedded.rentalInsurances[0]!.id].sort();
  check(JSON.stringify(listed) === JSON.stringify([created.data.id, second.data.id].sort()), `list: pages hold ${listed}`);
  step('list paged by _links.next.query (no URL parsing)');

  // The feed shows an event once older transactions end: follow next.query until the creation shows.
  let query: ListEventsData['query'] = { type: ['rental_insurance.status_changed'], limit: 50 };
  let found: Event | undefined;
  for (let reads = 0; reads < 100 && !found; reads += 1) {
    const page = await eventsPage(query);
    check(page.data, `events: ${page.response.status}`);
    found = page.data._embedded.events.find(
      (event) => event.type === 'rental_insurance.status_changed' && event.data.rentalInsurance.id === second.data!.id,
    );
    if (page.data._embedded.events.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    query = page.data._links.next.query;
  }
  check(found, 'events: the creation event never showed in the feed');
  step('event feed followed by _links.next.query up to the creation event');

  const missing = await getRentalInsurance({ path: { id: 2_000_000_000 } });
  check(missing.response.status === 404 && missing.error?.code === 'not_found', `404: ${missing.response.status}`);
  step('a typed error body (404 not_found)');
}

main().then(
  () => console.log('generated-client journey: OK'),
  (error: unknown) => {
    console.error(`generated-client journey: FAILED: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
