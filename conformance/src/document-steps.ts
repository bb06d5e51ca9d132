/**
 * Step: documents. Attach a PDF with a comment (multipart/form-data) and replay the upload with the
 * same key; list the guarantee's documents; download the one attached and check its bytes against
 * its SHA-256 (the `sha256` the service answered and `Repr-Digest`), then If-None-Match with its
 * ETag (304); an HTML page named `.pdf` is refused (415). Every exchange is validated against the
 * contract by the session.
 */
import { createHash } from 'node:crypto';
import { CREATE } from './guarantee-steps.js';
import { embedded, field, type Session } from './session.js';
import { header, type JourneyState, type Step } from './steps.js';

export const DOCUMENTS = 'attach, list and download a document (SHA-256 checked)';
const FILE_NAME = 'comprovante-renda.pdf';

/** A small PDF whose bytes are this run's own (its id in a comment). */
function samplePdf(runId: string): Buffer {
  return Buffer.from(
    `%PDF-1.4\n% partner-conformance ${runId}\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n` +
      '2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
  );
}

function form(bytes: Buffer, fileName: string, comment?: string): FormData {
  const body = new FormData();
  body.append('file', new Blob([new Uint8Array(bytes)], { type: 'application/pdf' }), fileName);
  if (comment !== undefined) body.append('comment', comment);
  return body;
}

const sha256Of = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The hexadecimal SHA-256 that a `Repr-Digest: sha-256=:<base64>:` header names, if it names one. */
const digestOf = (value: string | undefined) => {
  const base64 = /sha-256=:([A-Za-z0-9+/=]+):/.exec(value ?? '')?.[1];
  return base64 === undefined ? undefined : Buffer.from(base64, 'base64').toString('hex');
};

async function attach(session: Session, state: JourneyState, pdf: Buffer, key: string) {
  return session.call('POST', `/v1/rental-insurances/${state.guarantee!.id}/documents`, {
    headers: { 'Idempotency-Key': key },
    form: form(pdf, FILE_NAME, `Conformance run ${state.runId}: income proof`),
    expect: [201],
  });
}

export const documentSteps: Step[] = [
  {
    name: DOCUMENTS,
    needs: [CREATE],
    async run(session, state) {
      const base = `/v1/rental-insurances/${state.guarantee!.id}/documents`;
      const pdf = samplePdf(state.runId);
      const sha256 = sha256Of(pdf);
      const key = `${state.runId}-documents`;
      const attached = await attach(session, state, pdf, key);
      if (attached.status !== 201) return;
      session.check(header(attached, 'idempotent-replay') === 'false', 'a first upload answers Idempotent-Replay: false');
      const documents = (field<unknown[]>(attached.json, 'documents') ?? []) as unknown[];
      session.check(documents.length === 1, `the history entry lists the one file sent, not ${documents.length}`);
      const document = documents[0];
      session.check(field(document, 'fileName') === FILE_NAME, `the document keeps its name, not ${String(field(document, 'fileName'))}`);
      session.check(field(document, 'contentType') === 'application/pdf', 'the type detected from the bytes is application/pdf');
      session.check(field(document, 'size') === pdf.length, `the size is the bytes sent (${pdf.length})`);
      session.check(field(document, 'sha256') === sha256, 'the sha256 is the SHA-256 of the bytes sent');
      const id = field<number>(document, 'id');

      const replay = await attach(session, state, pdf, key);
      session.check(header(replay, 'idempotent-replay') === 'true', 'the same upload with the same key is a replay');
      session.check(field(replay.json, 'documents', 0, 'id') === id, 'the replay answers the same document');

      const list = await session.call('GET', base, { expect: [200] });
      const listed = embedded(list.json, 'documents');
      session.check(
        listed.some((entry) => field(entry, 'id') === id && field(entry, 'sha256') === sha256),
        'the guarantee lists the document attached',
      );

      const download = await session.call('GET', `${base}/${id}`, { headers: { Accept: '*/*' }, expect: [200] });
      if (download.status === 200) {
        session.check(sha256Of(download.bytes) === sha256, 'the bytes downloaded are the bytes sent (SHA-256)');
        session.check(digestOf(header(download, 'repr-digest')) === sha256, 'Repr-Digest names the SHA-256 of the bytes');
        session.check(header(download, 'content-type')?.startsWith('application/pdf'), 'the download is application/pdf');
        session.check(header(download, 'content-disposition')?.startsWith('attachment;'), 'the download is an attachment');
        const etag = header(download, 'etag');
        if (etag) await session.call('GET', `${base}/${id}`, { headers: { Accept: '*/*', 'If-None-Match': etag }, expect: [304] });
      }

      const html = Buffer.from('<!DOCTYPE html><html><body>not a document</body></html>');
      const refused = await session.call('POST', base, {
        headers: { 'Idempotency-Key': `${state.runId}-documents-html` },
        form: form(html, 'page.pdf'),
        expect: [415],
      });
      session.check(field(refused.json, 'code') === 'document_type_not_allowed', 'an HTML page named .pdf is 415 document_type_not_allowed');
    },
  },
];
