/**
 * One guarantee's whole story with documents, told through both APIs (issue 35, "Done when"): the
 * reviewer asks for information and sends a checklist, the partner answers with the documents and
 * a corrected field, the reviewer approves, the partner accepts (the service renders the contract)
 * and a contractual change reissues it. The history shows, step by step, the documents each step
 * carried; the document list holds them all, each downloads exactly, and the signature record of
 * the contract names the current one.
 */
import { createHash } from 'node:crypto';
import { useTestApp } from '../support/test-app';
import { asPartner, type HistoryEntry } from '../support/partner-api';
import { approvalTerms, guaranteePath, OPS, useStaff } from '../back-office/ops-support';
import { binary, documentsPath, pdfBytes, pngBytes, sha256Of, upload } from '../support/document-files';

const world = useTestApp({}, { agencies: 1 });
const partner = asPartner(world);
const { ops, operator } = useStaff(world, { name: 'Beatriz Revisora' });

test('When a guarantee goes through an information request, the answer with documents, accept and a reissue, then its history shows the documents of each step', async () => {
  const { id } = await partner.newGuarantee({ coTenants: [] });

  const checklist = pdfBytes();
  const asked = await upload(world, operator(), `${OPS}${guaranteePath(id, 'request-information')}`, [{ bytes: checklist, name: 'checklist.pdf' }], {
    comment: 'Envie o comprovante de renda e a identidade, e corrija a profissão.',
  });
  expect([asked.status, asked.body.status]).toEqual([200, 'information_requested']);

  const income = pdfBytes();
  const identity = pngBytes();
  const answered = await upload(
    world,
    world.agency,
    documentsPath(id),
    [
      { bytes: income, name: 'comprovante-renda.pdf' },
      { bytes: identity, name: 'identidade.png' },
    ],
    { comment: 'Comprovante de renda e identidade anexados.' },
  );
  expect(answered.status).toBe(201);
  const corrected = await partner.patch(id, { tenant: { profession: 'Arquiteta' } }, { ifMatch: 'W/"2"' });
  expect([corrected.status, corrected.body.status]).toEqual([200, 'under_review']);

  expect((await ops.post(guaranteePath(id, 'approve'), { ...approvalTerms, comment: 'Documentos conferidos.' })).status).toBe(200);
  expect((await partner.accept(id)).status).toBe(200);
  const reissue = await partner.patch(id, { tenant: { name: 'Maria José da Silva Souza' } }, { ifMatch: 'W/"5"' });
  expect([reissue.status, reissue.headers['service-effects']]).toEqual([200, 'contract_reissued']);

  const history = await partner.historyEntries(id);
  expect(history.map((entry: HistoryEntry) => [entry.status.code, entry.creator.name, entry.documents.map((document) => document.fileName)])).toEqual(
    [
      ['under_review', world.agency.displayName, []],
      ['information_requested', 'Beatriz Revisora', ['checklist.pdf']],
      ['information_requested', world.agency.displayName, ['comprovante-renda.pdf', 'identidade.png']],
      ['under_review', world.agency.displayName, []],
      ['approved', 'Beatriz Revisora', []],
      ['accepted', world.agency.displayName, [`contract-${id}-v5.pdf`]],
      ['accepted', world.agency.displayName, [`contract-${id}-v6.pdf`]],
    ],
  );
  const carried = history.flatMap((entry) => entry.documents);
  expect(carried.slice(0, 3).map((document) => document.sha256)).toEqual([sha256Of(checklist), sha256Of(income), sha256Of(identity)]);
  expect(carried.map((document) => document.contentType)).toEqual([
    'application/pdf',
    'application/pdf',
    'image/png',
    'application/pdf',
    'application/pdf',
  ]);

  // The partner's list holds every one, newest first, and each downloads as its digest says.
  const list = await partner.follow(documentsPath(id));
  expect(list.body._embedded.documents.map((document: { id: number }) => document.id)).toEqual(carried.map((document) => document.id).reverse());
  for (const document of carried) {
    const download = await binary(partner.follow(`${documentsPath(id)}/${document.id}`));
    expect(
      createHash('sha256')
        .update(download.body as Buffer)
        .digest('hex'),
    ).toBe(document.sha256);
  }
  // What the signers are asked to sign is the reissued contract.
  const [contractRecord] = await partner.signatureRecords(id);
  expect(contractRecord).toMatchObject({ role: 'document', status: 'pending', documentId: carried.at(-1)!.id });
  // The reviewer reads the same history.
  const staffView = await ops.get(`${guaranteePath(id, 'history')}?pageSize=200`);
  expect(staffView.body._embedded.historyEntries).toEqual(history);
});
