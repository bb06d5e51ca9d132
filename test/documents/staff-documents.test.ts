/**
 * Reviewers' documents through the back office (openapi/back-office.yaml): a reviewer attaches a
 * form, asks for information with a checklist attached, and the partner reads both in the history,
 * downloads them and is told without polling: by the event feed, and by a signed webhook on its
 * endpoint (a local receiver; this file's app runs a delivery worker for it).
 */
import request from 'supertest';
import { useTestApp } from '../support/test-app';
import { asPartner, type HistoryEntry } from '../support/partner-api';
import { newStaff, OPS, type Operator } from '../back-office/ops-support';
import { binary, documentsPath, htmlBytes, pdfBytes, sha256Of, upload } from '../support/document-files';
import { payloadProblems, startReceiver, verify, webhookClient } from '../webhooks/webhook-support';

const world = useTestApp({ WEBHOOK_DELIVERY_CONCURRENCY: '2', SCHEDULER_INTERVAL_MS: '0' }, { agencies: 1 });
const partner = asPartner(world);
let staff: Operator;
beforeAll(async () => {
  staff = await newStaff(world, { name: 'Ana Souza' });
});
const reviewPath = (id: number, action: string) => `${OPS}/v1/rental-insurances/${id}/${action}`;

test('When a reviewer asks for information with a checklist attached, then the partner reads it in the history, downloads it and sees the event', async () => {
  const guarantee = await partner.newGuarantee();
  const checklist = pdfBytes();
  const asked = await upload(world, staff, reviewPath(guarantee.id, 'request-information'), [{ bytes: checklist, name: 'checklist.pdf' }], {
    comment: 'Envie os documentos da lista anexa.',
  });
  expect(asked.status).toBe(200);
  expect(asked.body.status).toBe('information_requested');
  const entry = (await partner.historyEntries(guarantee.id)).at(-1)!;
  expect(entry.status.code).toBe('information_requested');
  expect(entry.comment).toBe('Envie os documentos da lista anexa.');
  expect(entry.creator).toEqual({ name: 'Ana Souza', serviceAccount: false });
  expect(entry.documents.map((d) => [d.fileName, d.sha256])).toEqual([['checklist.pdf', sha256Of(checklist)]]);
  const download = await binary(partner.follow(`${documentsPath(guarantee.id)}/${entry.documents[0]!.id}`));
  expect(Buffer.compare(download.body as Buffer, checklist)).toBe(0);

  // Read once the transactions running beside this test have ended (the feed holds newer events back until then).
  const feed = await webhookClient(world, world.agency).events({ type: 'rental_insurance.documents_attached', limit: 200 });
  expect(feed.status).toBe(200);
  const events = (feed.body._embedded.events as Array<{ data: { rentalInsuranceId: number; historyEntry: HistoryEntry } }>).filter(
    (event) => event.data.rentalInsuranceId === guarantee.id,
  );
  expect(events.map((event) => event.data.historyEntry.documents[0]!.sha256)).toEqual([sha256Of(checklist)]);
});

test('When a reviewer attaches a form, then it is its own history entry; the back office lists and downloads the partner documents too', async () => {
  const guarantee = await partner.newGuarantee();
  const form = pdfBytes();
  const attached = await upload(world, staff, reviewPath(guarantee.id, 'documents'), [{ bytes: form, name: 'formulario.pdf' }]);
  expect(attached.status).toBe(201);
  expect((attached.body as HistoryEntry).documents[0]!.creator).toEqual({ name: 'Ana Souza', serviceAccount: false });
  const mine = pdfBytes();
  expect((await upload(world, world.agency, documentsPath(guarantee.id), [{ bytes: mine, name: 'renda.pdf' }])).status).toBe(201);
  const list = await request(world.app).get(reviewPath(guarantee.id, 'documents')).set(staff.auth);
  expect(list.status).toBe(200);
  expect(list.body._embedded.documents.map((d: { fileName: string }) => d.fileName)).toEqual(['renda.pdf', 'formulario.pdf']);
  const id = list.body._embedded.documents[0].id as number;
  const download = await binary(
    request(world.app)
      .get(`${reviewPath(guarantee.id, 'documents')}/${id}`)
      .set(staff.auth),
  );
  expect(Buffer.compare(download.body as Buffer, mine)).toBe(0);
});

test('When a reviewer attaches a document, then the partner’s webhook endpoint receives rental_insurance.documents_attached, signed, with the guarantee and the document', async () => {
  const receiver = await startReceiver();
  world.beforeClose(() => receiver.close());
  const hooks = webhookClient(world, world.agency);
  const endpoint = await hooks.register(receiver.url, ['rental_insurance.documents_attached']);
  const guarantee = await partner.newGuarantee();
  const form = pdfBytes();
  const attached = await upload(world, staff, reviewPath(guarantee.id, 'documents'), [{ bytes: form, name: 'formulario-cadastro.pdf' }], {
    comment: 'Preencha e devolva o formulário.',
  });
  expect(attached.status).toBe(201);

  const [delivery] = await receiver.waitFor((all) => all.some((r) => r.event.data['rentalInsuranceId'] === guarantee.id));
  expect(receiver.received.map((r) => r.event.type)).toEqual(['rental_insurance.documents_attached']);
  expect(delivery!.headers['content-type']).toMatch(/^application\/json/);
  expect(delivery!.headers['webhook-id']).toBe(delivery!.event.id);
  expect(delivery!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
  expect(verify(endpoint.secret, delivery!)).toEqual(delivery!.event);
  expect(payloadProblems(delivery!.event)).toEqual([]);
  expect(delivery!.event).toMatchObject({ type: 'rental_insurance.documents_attached', agencyId: world.agency.companyId });
  const entry = delivery!.event.data['historyEntry'] as HistoryEntry;
  expect(delivery!.event.data['rentalInsuranceId']).toBe(guarantee.id);
  expect(entry).toEqual(attached.body);
  expect(entry.creator).toEqual({ name: 'Ana Souza', serviceAccount: false });
  expect(entry.documents.map((d) => [d.fileName, d.sha256])).toEqual([['formulario-cadastro.pdf', sha256Of(form)]]);
  expect((await hooks.remove(endpoint.id)).status).toBe(204);
});

test('When a reviewer declines with an HTML page attached, then 415 and the guarantee stays under review', async () => {
  const guarantee = await partner.newGuarantee();
  const refused = await upload(world, staff, reviewPath(guarantee.id, 'decline'), [{ bytes: htmlBytes(), name: 'motivo.pdf' }]);
  expect([refused.status, refused.body.code]).toEqual([415, 'document_type_not_allowed']);
  expect((await partner.current(guarantee.id)).status).toBe('under_review');
  const declined = await upload(world, staff, reviewPath(guarantee.id, 'decline'), [{ bytes: pdfBytes(), name: 'motivo.pdf' }], {
    comment: 'Renda insuficiente.',
  });
  expect(declined.status).toBe(200);
  expect((await partner.historyEntries(guarantee.id)).at(-1)!.documents.map((d) => d.fileName)).toEqual(['motivo.pdf']);
});

test('When a partner token calls the back-office upload, then 403 and nothing is stored', async () => {
  const guarantee = await partner.newGuarantee();
  const response = await upload(world, world.agency, reviewPath(guarantee.id, 'documents'), [{ bytes: pdfBytes(), name: 'x.pdf' }]);
  expect(response.status).toBe(403);
  expect(await world.db.documentUpload.count()).toBe(0);
});
