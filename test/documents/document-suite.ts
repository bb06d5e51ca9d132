/**
 * The documents' story, told once and run against each store: PostgreSQL (documents-postgres.test.ts)
 * and a real S3-protocol server (documents-s3.test.ts). A partner attaches, lists and downloads; bad
 * input is refused and leaves no bytes behind; the contract is a document.
 */
import request from 'supertest';
import { useTestApp, type World } from '../support/test-app';
import { asPartner, COLLECTION, type HistoryEntry } from '../support/partner-api';
import { backOffice } from '../support/back-office';
import { expectErrorBody } from '../support/error-body';
import { pdfTextLines } from '../support/pdf-text-lines';
import { binary, documentsPath, htmlBytes, jpegBytes, pdfBytes, pngBytes, sha256Of, svgBytes, upload, zipBytes } from '../support/document-files';

export interface StoreVariant {
  /** Environment of the app (DOCUMENT_STORE_URL for the S3 variant). */
  env: () => Record<string, string>;
  /** How many stored objects (PostgreSQL: storage keys with chunks; S3: objects in the bucket) exist now. */
  storedObjects: (world: World) => Promise<number>;
}

export function documentSuite(variant: StoreVariant): World {
  const world = useTestApp({}, { agencies: 2, lazyEnv: variant.env });
  const partner = asPartner(world);
  const other = asPartner(world, () => world.agencies[1]!);
  const who = () => world.agency;

  /** Every document row, blob and staged upload, and every stored object: what a refusal must leave unchanged. */
  const stored = async () => ({
    documents: await world.db.document.count(),
    blobs: await world.db.documentBlob.count(),
    uploads: await world.db.documentUpload.count(),
    objects: await variant.storedObjects(world),
  });

  test('When a partner attaches two files with a comment, then one history entry lists them in order, and each downloads exactly', async () => {
    const guarantee = await partner.newGuarantee();
    const pdf = pdfBytes();
    const png = pngBytes();
    const response = await upload(
      world,
      who(),
      documentsPath(guarantee.id),
      [
        { bytes: pdf, name: 'comprovante-renda.pdf', type: 'image/png' },
        { bytes: png, name: 'C:\\fakepath\\identidade ção.png' },
      ],
      { comment: 'Comprovante de renda e identidade.' },
    );
    expect(response.status).toBe(201);
    expect(response.headers['idempotent-replay']).toBe('false');
    expect(response.headers['service-effects']).toBe('none');
    const entry = response.body as HistoryEntry;
    expect(entry.comment).toBe('Comprovante de renda e identidade.');
    expect(entry.status).toEqual(entry.previousStatus);
    expect(entry.documents.map((d) => [d.fileName, d.contentType, d.size, d.sha256])).toEqual([
      ['comprovante-renda.pdf', 'application/pdf', pdf.length, sha256Of(pdf)],
      ['identidade ção.png', 'image/png', png.length, sha256Of(png)],
    ]);
    expect(entry.documents[0]!.creator).toEqual({ name: world.agency.displayName, serviceAccount: true });

    const history = await partner.historyEntries(guarantee.id);
    expect(history.at(-1)!.documents).toEqual(entry.documents);
    const list = await partner.follow(documentsPath(guarantee.id));
    expect(list.status).toBe(200);
    expect(list.body._embedded.documents.map((d: { id: number }) => d.id)).toEqual([entry.documents[1]!.id, entry.documents[0]!.id]);
    expect(list.body.page.totalElements).toBe(2);

    const download = await binary(partner.follow(`${documentsPath(guarantee.id)}/${entry.documents[1]!.id}`));
    expect(download.status).toBe(200);
    expect(Buffer.compare(download.body as Buffer, png)).toBe(0);
    expect(download.headers['content-type']).toBe('image/png');
    expect(download.headers['content-length']).toBe(String(png.length));
    expect(download.headers['etag']).toBe(`"${sha256Of(png)}"`);
    expect(download.headers['repr-digest']).toBe(`sha-256=:${Buffer.from(sha256Of(png), 'hex').toString('base64')}:`);
    expect(download.headers['content-disposition']).toBe(
      `attachment; filename="identidade ??o.png"; filename*=UTF-8''identidade%20%C3%A7%C3%A3o.png`,
    );
    expect(download.headers['x-content-type-options']).toBe('nosniff');
    expect(download.headers['content-security-policy']).toBe('sandbox');

    const head = await request(world.app)
      .head(`${documentsPath(guarantee.id)}/${entry.documents[0]!.id}`)
      .set(who().auth);
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(pdf.length));
    const notModified = await partner.follow(`${documentsPath(guarantee.id)}/${entry.documents[0]!.id}`).set('If-None-Match', `"${sha256Of(pdf)}"`);
    expect(notModified.status).toBe(304);
    expect(notModified.headers['etag']).toBe(`"${sha256Of(pdf)}"`);
  });

  test('When the same key is sent again with the same files, then the entry is replayed; with other bytes, then 400 idempotency_key_reused', async () => {
    const guarantee = await partner.newGuarantee();
    const pdf = pdfBytes();
    const first = await upload(world, who(), documentsPath(guarantee.id), [{ bytes: pdf, name: 'a.pdf' }], { key: 'docs-key-1' });
    expect(first.status).toBe(201);
    const before = await stored();
    const replay = await upload(world, who(), documentsPath(guarantee.id), [{ bytes: pdf, name: 'a.pdf' }], { key: 'docs-key-1' });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replay']).toBe('true');
    expect(replay.body).toEqual(first.body);
    const reused = await upload(world, who(), documentsPath(guarantee.id), [{ bytes: pdfBytes(), name: 'a.pdf' }], { key: 'docs-key-1' });
    expect(reused.status).toBe(400);
    expect(reused.body.code).toBe('idempotency_key_reused');
    expect(await stored()).toEqual(before);
  });

  test('When the same bytes are attached twice, then they are stored once for the agency', async () => {
    const guarantee = await partner.newGuarantee();
    const pdf = pdfBytes();
    const before = await stored();
    for (const name of ['one.pdf', 'two.pdf'])
      expect((await upload(world, who(), documentsPath(guarantee.id), [{ bytes: pdf, name }])).status).toBe(201);
    const after = await stored();
    expect(after.documents - before.documents).toBe(2);
    expect(after.blobs - before.blobs).toBe(1);
    expect(after.objects - before.objects).toBe(1);
    expect(after.uploads).toBe(0);
  });

  test.each([
    { what: 'HTML', bytes: htmlBytes(), name: 'page.pdf', status: 415, code: /^document_type_not_allowed$/ },
    { what: 'SVG', bytes: svgBytes(), name: 'image.png', status: 415, code: /^document_type_not_allowed$/ },
    { what: 'a ZIP named .pdf', bytes: zipBytes(), name: 'contrato.pdf', status: 415, code: /^document_type_not_allowed$/ },
    { what: 'an empty file', bytes: Buffer.alloc(0), name: 'empty.pdf', status: 400, code: /^validation_failed$/ },
    { what: 'a name of 10,000 characters', bytes: pdfBytes(), name: `${'a'.repeat(10_000)}.pdf`, status: 400, code: /^validation_failed$/ },
    // A NUL inside a part's header is refused by the parser itself, or by the name's own check.
    {
      what: 'a name with ../ and NUL',
      bytes: pdfBytes(),
      name: '../../etc/passwd\u0000.pdf',
      status: 400,
      code: /^(validation_failed|malformed_multipart)$/,
    },
  ])('When a partner sends $what beside a valid file, then $status and nothing is stored', async ({ bytes, name, status, code }) => {
    const guarantee = await partner.newGuarantee();
    const before = await stored();
    const response = await upload(world, who(), documentsPath(guarantee.id), [
      { bytes: pdfBytes(), name: 'fine.pdf' },
      { bytes, name },
    ]);
    expect(response.status).toBe(status);
    expect(response.body.code).toMatch(code);
    expect(await stored()).toEqual(before);
  });

  test('When the request is malformed (no multipart, no boundary, a truncated body, another part, six files, a blank comment), then 4xx and nothing is stored', async () => {
    const guarantee = await partner.newGuarantee();
    const path = documentsPath(guarantee.id);
    const before = await stored();
    const keyed = () => request(world.app).post(path).set(who().auth).set('Idempotency-Key', `k-${Math.random()}`);
    const json = await keyed().set('Content-Type', 'application/json').send('{}');
    expect([json.status, json.body.code]).toEqual([415, 'unsupported_media_type']);
    const noBoundary = await keyed().set('Content-Type', 'multipart/form-data').send('--x\r\n');
    expect([noBoundary.status, noBoundary.body.code]).toEqual([400, 'malformed_multipart']);
    const truncated = await keyed()
      .set('Content-Type', 'multipart/form-data; boundary=XYZ')
      .send(Buffer.concat([Buffer.from('--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n'), pdfBytes()]));
    expect([truncated.status, truncated.body.code]).toEqual([400, 'malformed_multipart']);
    const otherPart = await upload(world, who(), path, [{ bytes: pdfBytes(), name: 'a.pdf' }], { fields: [['note', 'x']] });
    expect([otherPart.status, otherPart.body.code]).toEqual([400, 'validation_failed']);
    const six = await upload(
      world,
      who(),
      path,
      Array.from({ length: 6 }, (_, i) => ({ bytes: pdfBytes(), name: `${i}.pdf` })),
    );
    expect([six.status, six.body.code, six.body.details]).toEqual([400, 'validation_failed', ['file: at most 5 files']]);
    const blank = await upload(world, who(), path, [{ bytes: pdfBytes(), name: 'a.pdf' }], { comment: '   ' });
    expect([blank.status, blank.body.code]).toEqual([400, 'validation_failed']);
    const noFile = await upload(world, who(), path, [], { comment: 'only a comment' });
    expect([noFile.status, noFile.body.code]).toEqual([400, 'validation_failed']);
    expect(await stored()).toEqual(before);
  });

  test('When a partner uploads without an Idempotency-Key, then 400 idempotency_key_required in the error body and nothing is stored', async () => {
    const guarantee = await partner.newGuarantee();
    const before = await stored();
    const entriesBefore = (await partner.historyEntries(guarantee.id)).length;
    const response = await upload(world, who(), documentsPath(guarantee.id), [{ bytes: pdfBytes(), name: 'renda.pdf' }], {
      key: null,
      comment: 'Sem chave.',
    });
    expectErrorBody(response, 400, 'idempotency_key_required');
    expect(response.body.details).toEqual(['Idempotency-Key: is required']);
    expect(await stored()).toEqual(before);
    expect(await partner.historyEntries(guarantee.id)).toHaveLength(entriesBefore);
    expect((await partner.follow(documentsPath(guarantee.id))).body.page.totalElements).toBe(0);
  });

  test('When a file name carries bidirectional-override, isolate or invisible marks, then the name is kept without them', async () => {
    const guarantee = await partner.newGuarantee();
    const response = await upload(world, who(), documentsPath(guarantee.id), [
      // Shown as "faturaexe.pdf" while it ends in .exe: the override must not survive.
      { bytes: pdfBytes(), name: 'fatura\u202Efdp.exe' },
      { bytes: pdfBytes(), name: '\u2066renda\u2069\u200E \u202Ajaneiro\u202C\u202D\u200F\u061C\u202B\uFEFF.pdf' },
    ]);
    expect(response.status).toBe(201);
    const documents = (response.body as HistoryEntry).documents;
    expect(documents.map((d) => [d.fileName, d.contentType])).toEqual([
      ['faturafdp.exe', 'application/pdf'],
      ['renda janeiro.pdf', 'application/pdf'],
    ]);
    const list = await partner.follow(documentsPath(guarantee.id));
    expect(list.body._embedded.documents.map((d: { fileName: string }) => d.fileName)).toEqual(['renda janeiro.pdf', 'faturafdp.exe']);
    const download = await binary(partner.follow(`${documentsPath(guarantee.id)}/${documents[0]!.id}`));
    expect(download.headers['content-disposition']).toBe('attachment; filename=faturafdp.exe');
  });

  test('When a file passes 10 MB, then 413 document_too_large and nothing is stored', async () => {
    const guarantee = await partner.newGuarantee();
    const before = await stored();
    const response = await upload(world, who(), documentsPath(guarantee.id), [{ bytes: pdfBytes('big', 10 * 1024 * 1024), name: 'big.pdf' }]);
    expect([response.status, response.body.code]).toEqual([413, 'document_too_large']);
    expect(await stored()).toEqual(before);
  });

  test("When another agency names the guarantee or its document, then 404 and its bytes stay the owner's", async () => {
    const guarantee = await partner.newGuarantee();
    const attached = await upload(world, who(), documentsPath(guarantee.id), [{ bytes: pdfBytes(), name: 'a.pdf' }]);
    const id = (attached.body as HistoryEntry).documents[0]!.id;
    expect((await other.follow(documentsPath(guarantee.id))).status).toBe(404);
    expect((await other.follow(`${documentsPath(guarantee.id)}/${id}`)).status).toBe(404);
    expect((await upload(world, world.agencies[1]!, documentsPath(guarantee.id), [{ bytes: pdfBytes(), name: 'b.pdf' }])).status).toBe(404);
    const theirs = await other.newGuarantee();
    expect((await other.follow(`${documentsPath(theirs.id)}/${id}`)).status).toBe(404);
  });

  test('When a partner accepts, then the accept entry carries the contract the document record names; a reissue renders a new one', async () => {
    const guarantee = await partner.newGuarantee();
    const office = backOffice(world);
    await office.approve(guarantee.id);
    expect((await partner.accept(guarantee.id)).status).toBe(200);
    const accepted = (await partner.historyEntries(guarantee.id)).at(-1)!;
    expect(accepted.status.code).toBe('accepted');
    expect(accepted.documents).toHaveLength(1);
    const contract = accepted.documents[0]!;
    expect(contract).toMatchObject({ contentType: 'application/pdf', fileName: `contract-${guarantee.id}-v3.pdf` });
    // The credential that accepted rendered it (openapi: Document), as on the accept's entry.
    expect(contract.creator).toEqual({ name: who().displayName, serviceAccount: true });
    expect(accepted.creator).toEqual(contract.creator);
    const records = await partner.signatureRecords(guarantee.id);
    expect(records.map((record) => record.documentId)).toEqual([contract.id, null]);
    const pdf = await binary(partner.follow(`${documentsPath(guarantee.id)}/${contract.id}`));
    expect((pdf.body as Buffer).subarray(0, 5).toString()).toBe('%PDF-');
    expect(sha256Of(pdf.body as Buffer)).toBe(contract.sha256);

    const reissue = await partner.patch(guarantee.id, { tenant: { name: 'Maria José da Silva Souza' } }, { ifMatch: 'W/"3"' });
    expect(reissue.status).toBe(200);
    expect(reissue.headers['service-effects']).toBe('contract_reissued');
    const reissued = (await partner.historyEntries(guarantee.id)).at(-1)!;
    expect(reissued.documents.map((d) => d.fileName)).toEqual([`contract-${guarantee.id}-v4.pdf`]);
    const [documentRecord] = await partner.signatureRecords(guarantee.id);
    expect(documentRecord!.documentId).toBe(reissued.documents[0]!.id);
    expect(reissued.documents[0]!.sha256).not.toBe(contract.sha256);
  });

  test('When a partner downloads the contract of an accepted guarantee, then it reads the parties, the property, the amounts and the version the signers sign, and a reissue reads the new ones', async () => {
    const guarantee = await partner.newGuarantee();
    await backOffice(world).approve(guarantee.id);
    expect((await partner.accept(guarantee.id)).status).toBe(200);
    const accepted = await partner.current(guarantee.id);
    const contract = (await partner.historyEntries(guarantee.id)).at(-1)!.documents[0]!;
    const download = await binary(partner.follow(`${documentsPath(guarantee.id)}/${contract.id}`));
    expect(download.status).toBe(200);
    expect(download.headers['content-type']).toBe('application/pdf');

    const lines = pdfTextLines(download.body as Buffer);
    const brl = (amount: number | null) =>
      amount === null ? '-' : `R$ ${new Intl.NumberFormat('pt-BR', { minimumFractionDigits: 2 }).format(amount)}`;
    expect(lines[0]).toBe('Rental guarantee contract');
    expect(lines[1]).toMatch(new RegExp(`^Guarantee ${guarantee.id}, version 3, issued \\d{4}-\\d{2}-\\d{2}T`));
    expect(accepted.installmentAmount).not.toBeNull();
    expect(accepted.coverageLimit).not.toBeNull();
    expect(lines).toEqual(
      expect.arrayContaining([
        `Agency: ${who().companyId}`,
        `Tenant: Maria José da Silva (CPF/CNPJ ${accepted.tenant.cpfCnpj})`,
        `Reference: ${accepted.property.externalId}`,
        'Type: apartment',
        `Address: Avenida Paulista, 1578, Apto 52, Bela Vista, São Paulo-SP, CEP ${accepted.property.address.zipCode}`,
        'Rent: R$ 3.500,00',
        'Condominium fee: R$ 850,00',
        'Property tax: R$ 210,35',
        'Other fees: -',
        `Guarantee installment: ${brl(accepted.installmentAmount)}`,
        'Setup fee (once): R$ 150,00',
        `Coverage limit: ${brl(accepted.coverageLimit)}`,
        `Rent coverage limit: ${brl(accepted.rentCoverageLimit)}`,
        `Start of billing: ${accepted.startBillingDate ?? '-'}`,
        `End of the guarantee: ${accepted.terminationDate ?? '-'}`,
      ]),
    );

    const reissue = await partner.patch(guarantee.id, { tenant: { name: 'Maria José da Silva Souza' } }, { ifMatch: accepted.etag });
    expect(reissue.headers['service-effects']).toBe('contract_reissued');
    const reissued = (await partner.historyEntries(guarantee.id)).at(-1)!.documents[0]!;
    const newLines = pdfTextLines((await binary(partner.follow(`${documentsPath(guarantee.id)}/${reissued.id}`))).body as Buffer);
    expect(newLines[1]).toMatch(new RegExp(`^Guarantee ${guarantee.id}, version 4, issued `));
    expect(newLines).toContain(`Tenant: Maria José da Silva Souza (CPF/CNPJ ${accepted.tenant.cpfCnpj})`);
    expect(newLines).not.toContain(`Tenant: Maria José da Silva (CPF/CNPJ ${accepted.tenant.cpfCnpj})`);
  });

  test('When the guarantee is archived, then attaching is 409 invalid_state', async () => {
    const guarantee = await partner.newGuarantee();
    await world.db.rentalInsurance.update({ where: { id: BigInt(guarantee.id) }, data: { status: 'archived' } });
    const response = await upload(world, who(), documentsPath(guarantee.id), [{ bytes: pdfBytes(), name: 'a.pdf' }]);
    expect([response.status, response.body.code]).toEqual([409, 'invalid_state']);
    expect((await partner.follow(`${COLLECTION}/${guarantee.id}/documents`)).status).toBe(200);
  });

  test('When a JPEG is attached, then its type comes from its bytes whatever its name says', async () => {
    const guarantee = await partner.newGuarantee();
    const response = await upload(world, who(), documentsPath(guarantee.id), [{ bytes: jpegBytes(), name: 'scan.pdf', type: 'application/pdf' }]);
    expect(response.status).toBe(201);
    expect((response.body as HistoryEntry).documents[0]!.contentType).toBe('image/jpeg');
  });

  return world;
}
