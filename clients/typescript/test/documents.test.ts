/**
 * Documents through the client against the real service: a file attached from disk, listed, and
 * downloaded streaming to another file whose SHA-256 matches; a refused type is a PartnerApiError.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { PartnerApiError } from '../src/index.js';
import { newGuarantee, startHarness, type Harness } from './harness.js';

let h: Harness;
let dir: string;
before(async () => {
  h = await startHarness('client-documents');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'client-documents-'));
});
after(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await h?.close();
});

const pdf = () => Buffer.from(`%PDF-1.4\n% ${randomBytes(16).toString('hex')}\ntrailer << >>\n%%EOF\n`);

test('attachDocuments sends a file from disk; downloadDocument streams it to a file with the same SHA-256', async () => {
  const client = h.client();
  const guarantee = (await client.rentalInsurances.create(newGuarantee())).data;
  const source = path.join(dir, 'comprovante-renda.pdf');
  const bytes = pdf();
  fs.writeFileSync(source, bytes);
  const attached = await client.documents.attachDocuments(guarantee.id, [{ path: source }], { comment: 'Comprovante de renda.' });
  assert.equal(attached.status, 201);
  const [document] = attached.data.documents;
  assert.equal(document!.fileName, 'comprovante-renda.pdf');
  assert.equal(document!.sha256, createHash('sha256').update(bytes).digest('hex'));
  const listed = await client.documents.listDocuments(guarantee.id);
  assert.deepEqual(
    listed.data._embedded.documents.map((d) => d.id),
    [document!.id],
  );
  const target = path.join(dir, 'downloaded.pdf');
  const downloaded = await client.documents.downloadDocument(guarantee.id, document!.id, target);
  assert.equal(downloaded.sha256, document!.sha256);
  assert.equal(downloaded.size, bytes.length);
  assert.deepEqual(fs.readFileSync(target), bytes);
});

test('a file whose bytes are not PDF, JPEG or PNG is a PartnerApiError 415 document_type_not_allowed', async () => {
  const client = h.client();
  const guarantee = (await client.rentalInsurances.create(newGuarantee())).data;
  await assert.rejects(
    client.documents.attachDocuments(guarantee.id, [{ data: new TextEncoder().encode('<html></html>'), fileName: 'page.pdf' }]),
    (error: unknown) => error instanceof PartnerApiError && error.status === 415 && error.code === 'document_type_not_allowed',
  );
});
