/**
 * Issue 37 with documents: a director reads and downloads the documents of the agency's own
 * guarantees through the back office (`listAgencyRentalInsuranceDocuments`,
 * `getAgencyRentalInsuranceDocument`), exactly as the partner's download answers them; another
 * agency's guarantee or document is not found; the staff document operations refuse a director.
 */
import { createHash } from 'node:crypto';
import { asPartner } from '../support/partner-api';
import { expectErrorBody } from '../support/error-body';
import { useTestApp } from '../support/test-app';
import { newDirector, newStaff, OPS, opsClient, type Operator } from '../back-office/ops-support';
import { binary, documentsPath, pdfBytes, sha256Of, upload } from '../support/document-files';

const world = useTestApp({}, { agencies: 2 });
let dalva: Operator;
let director: ReturnType<typeof opsClient>;
let staff: Operator;
beforeAll(async () => {
  dalva = await newDirector(world, world.agencies[0]!.companyId, 'Dalva Diretora');
  director = opsClient(world, dalva);
  staff = await newStaff(world, { name: 'Ana Souza' });
});

const agencyPath = (id: number) => `/v1/agency/rental-insurances/${id}/documents`;

test('When a director opens a guarantee of the agency, then they list its documents and download one with the partner download headers', async () => {
  const partner = asPartner(world, world.agencies[0]);
  const guarantee = await partner.newGuarantee();
  const bytes = pdfBytes();
  const attached = await upload(world, world.agencies[0]!, documentsPath(guarantee.id), [{ bytes, name: 'comprovante de renda.pdf' }]);
  expect(attached.status).toBe(201);
  const [document] = attached.body.documents as Array<{ id: number }>;

  const list = await director.get(`${agencyPath(guarantee.id)}?pageSize=200`);
  expect(list.status).toBe(200);
  expect(list.body._embedded.documents).toEqual([
    expect.objectContaining({
      id: document!.id,
      fileName: 'comprovante de renda.pdf',
      contentType: 'application/pdf',
      size: bytes.length,
      sha256: sha256Of(bytes),
    }),
  ]);

  const download = await binary(director.get(`${agencyPath(guarantee.id)}/${document!.id}`));
  expect(download.status).toBe(200);
  expect(Buffer.compare(download.body as Buffer, bytes)).toBe(0);
  expect(download.headers).toMatchObject({
    'content-type': 'application/pdf',
    'content-length': String(bytes.length),
    etag: `"${sha256Of(bytes)}"`,
    'repr-digest': `sha-256=:${createHash('sha256').update(bytes).digest('base64')}:`,
    'x-content-type-options': 'nosniff',
    'content-security-policy': 'sandbox',
  });
  expect(download.headers['content-disposition']).toMatch(/^attachment; filename="comprovante de renda\.pdf"/);

  const again = await director.get(`${agencyPath(guarantee.id)}/${document!.id}`).set('If-None-Match', download.headers.etag!);
  expect(again.status).toBe(304);
  expect(again.headers.etag).toBe(download.headers.etag);
});

test('When a director names another agency’s guarantee or document, then 404 and no byte of it', async () => {
  const foreign = await asPartner(world, world.agencies[1]).newGuarantee();
  const foreignDocument = await upload(world, world.agencies[1]!, documentsPath(foreign.id), [{ bytes: pdfBytes(), name: 'alheio.pdf' }]);
  const foreignId = (foreignDocument.body.documents as Array<{ id: number }>)[0]!.id;
  expectErrorBody(await director.get(agencyPath(foreign.id)), 404, 'not_found');
  expectErrorBody(await director.get(`${agencyPath(foreign.id)}/${foreignId}`), 404, 'not_found');

  // A guarantee of the agency with another guarantee's document id: the document is not found.
  const own = await asPartner(world, world.agencies[0]).newGuarantee();
  expectErrorBody(await director.get(`${agencyPath(own.id)}/${foreignId}`), 404, 'not_found');
});

test('When a director calls the staff document operations, or a reviewer the agency ones, then 403', async () => {
  const guarantee = await asPartner(world, world.agencies[0]).newGuarantee();
  const attached = await upload(world, world.agencies[0]!, documentsPath(guarantee.id), [{ bytes: pdfBytes(), name: 'renda.pdf' }]);
  const documentId = (attached.body.documents as Array<{ id: number }>)[0]!.id;
  const staffPath = `/v1/rental-insurances/${guarantee.id}/documents`;
  expectErrorBody(await director.get(staffPath), 403, 'insufficient_scope');
  expectErrorBody(await director.get(`${staffPath}/${documentId}`), 403, 'insufficient_scope');
  const decline = await upload(world, dalva, `${OPS}/v1/rental-insurances/${guarantee.id}/decline`, [{ bytes: pdfBytes(), name: 'motivo.pdf' }]);
  expectErrorBody(decline, 403, 'insufficient_scope');
  expectErrorBody(await opsClient(world, staff).get(`${agencyPath(guarantee.id)}/${documentId}`), 403, 'insufficient_scope');
  // A partner token has no back-office scope at all.
  expectErrorBody(await opsClient(world, world.agencies[0]!).get(`${agencyPath(guarantee.id)}/${documentId}`), 403, 'insufficient_scope');
});
