/**
 * What a partner can make the service store is bounded (issue 35 item 6), and a refusal stores
 * nothing: a request over 55 MB and a file over 10 MB are refused while they are still being sent;
 * an agency's daily byte quota (a small one here) is 429 with Retry-After, before the body is read
 * once it is spent, while a retry of a stored upload is still replayed; a guarantee holds at most
 * 100 documents, a contract the service renders beyond them included.
 */
import { useTestApp } from '../support/test-app';
import { asPartner, type HistoryEntry } from '../support/partner-api';
import { backOffice } from '../support/back-office';
import { listen, type Listening } from '../support/raw-http';
import { chunksOf, documentsPath, htmlBytes, openUpload, pdfBytes, upload } from '../support/document-files';

const QUOTA = 64 * 1024;
const world = useTestApp({ DOCUMENT_BYTES_PER_AGENCY_PER_DAY: String(QUOTA) }, { agencies: 4 });
let server: Listening;
beforeAll(async () => {
  server = await listen(world.app);
});
afterAll(() => server?.close());

/** Every document row, blob, staged upload, stored chunk and quota count: what a refusal must leave unchanged. */
const stored = async () => ({
  documents: await world.db.document.count(),
  blobs: await world.db.documentBlob.count(),
  uploads: await world.db.documentUpload.count(),
  chunks: await world.db.documentChunk.count(),
  quotaBytes: (await world.db.documentQuotaUsage.aggregate({ _sum: { bytes: true } }))._sum.bytes ?? 0n,
});

/** The answer to an upload left open, then its connection closed (the request is never finished). */
async function answered(sending: ReturnType<typeof openUpload>) {
  try {
    return await sending.answer;
  } finally {
    sending.destroy();
  }
}

describe('When an upload passes a size limit while it is being sent', () => {
  test('then a file over 10 MB is answered 413 document_too_large before the request ends, and nothing is stored', async () => {
    const agency = world.agencies[0]!;
    const guarantee = await asPartner(world, agency).newGuarantee();
    const before = await stored();
    const sending = openUpload(server.origin, agency, documentsPath(guarantee.id));
    sending.fileHeader('big.pdf');
    sending.write(pdfBytes());
    for (const chunk of chunksOf(10 * 1024 * 1024)) sending.write(chunk);
    // The closing boundary is never sent, nor the end of the request: the answer cannot wait for them.
    const answer = await answered(sending);
    expect(answer.status).toBe(413);
    expect(answer.body.code).toBe('document_too_large');
    expect(answer.body.details).toEqual(['file[0]: a file may have at most 10485760 bytes']);
    expect(answer.headers['connection']).toBe('close');
    expect(await stored()).toEqual(before);
  });

  test('then a request over 55 MB is answered 413 before it ends, and the file it already carried is not kept', async () => {
    const agency = world.agencies[0]!;
    const guarantee = await asPartner(world, agency).newGuarantee();
    const before = await stored();
    const sending = openUpload(server.origin, agency, documentsPath(guarantee.id));
    // A whole valid file (staged as it arrives), the closing boundary, then an epilogue that never ends.
    sending.fileHeader('renda.pdf');
    sending.write(pdfBytes('limit', 1024 * 1024));
    sending.close();
    for (const chunk of chunksOf(55 * 1024 * 1024)) sending.write(chunk);
    const answer = await answered(sending);
    expect(answer.status).toBe(413);
    expect(answer.body.code).toBe('document_too_large');
    expect(answer.body.details).toEqual([`body: a request may carry at most ${55 * 1024 * 1024} bytes`]);
    expect(await stored()).toEqual(before);
  });
});

describe("When an agency uploads more than its day's quota of bytes", () => {
  test('then the upload that passes it is 429 with Retry-After and counts nothing; once it is spent, an upload is refused before its body is read', async () => {
    const [agency, other] = [world.agencies[1]!, world.agencies[2]!];
    const partner = asPartner(world, agency);
    const guarantee = await partner.newGuarantee();
    const path = documentsPath(guarantee.id);
    const first = pdfBytes('quota-first', 40_000);
    const firstKey = 'quota-first-upload';
    expect((await upload(world, agency, path, [{ bytes: first, name: 'first.pdf' }], { key: firstKey })).status).toBe(201);

    // 40,000 + 30,000 bytes pass the quota of 65,536: refused after reading, in the upload's transaction.
    const before = await stored();
    const over = await upload(world, agency, path, [{ bytes: pdfBytes('quota-over', 30_000), name: 'over.pdf' }]);
    expect([over.status, over.body.code]).toEqual([429, 'document_quota_exceeded']);
    const retryAfter = Number(over.headers['retry-after']);
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 86_400).toBe(true);
    expect(await stored()).toEqual(before);

    // The rest of the quota exactly: accepted, and the quota is now spent.
    const rest = pdfBytes('quota-rest');
    const fill = pdfBytes('quota-rest', QUOTA - first.length - rest.length);
    expect(first.length + fill.length).toBe(QUOTA);
    expect((await upload(world, agency, path, [{ bytes: fill, name: 'rest.pdf' }])).status).toBe(201);

    // Spent: refused from the headers alone. The body is HTML (415 if it were read) and never ends.
    const spent = await stored();
    const sending = openUpload(server.origin, agency, path);
    sending.fileHeader('page.pdf');
    sending.write(htmlBytes());
    const refused = await answered(sending);
    expect([refused.status, refused.body.code]).toEqual([429, 'document_quota_exceeded']);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers['connection']).toBe('close');
    expect(await stored()).toEqual(spent);

    // A retry of an upload that succeeded is still its replay, quota or not.
    const replay = await upload(world, agency, path, [{ bytes: first, name: 'first.pdf' }], { key: firstKey });
    expect([replay.status, replay.headers['idempotent-replay']]).toEqual([201, 'true']);

    // Another agency's quota is its own.
    const theirs = await asPartner(world, other).newGuarantee();
    expect((await upload(world, other, documentsPath(theirs.id), [{ bytes: pdfBytes(), name: 'a.pdf' }])).status).toBe(201);
  });
});

describe('When a guarantee holds 100 documents', () => {
  test('then more are 409 document_limit_reached and nothing is stored, but the contract of an accept is still attached', async () => {
    const agency = world.agencies[3]!;
    const partner = asPartner(world, agency);
    const guarantee = await partner.newGuarantee();
    const path = documentsPath(guarantee.id);
    const files = (count: number) => Array.from({ length: count }, (_, index) => ({ bytes: pdfBytes(), name: `doc-${index}.pdf` }));
    for (let sent = 0; sent < 95; sent += 5) expect((await upload(world, agency, path, files(5))).status).toBe(201);
    expect((await upload(world, agency, path, files(4))).status).toBe(201);

    const before = await stored();
    const two = await upload(world, agency, path, files(2));
    expect([two.status, two.body.code]).toEqual([409, 'document_limit_reached']);
    expect(await stored()).toEqual(before);
    expect((await upload(world, agency, path, files(1))).status).toBe(201);
    const more = await upload(world, agency, path, files(1));
    expect([more.status, more.body.code]).toEqual([409, 'document_limit_reached']);

    await backOffice(world).approve(guarantee.id);
    expect((await partner.accept(guarantee.id)).status).toBe(200);
    const accepted = (await partner.historyEntries(guarantee.id)).at(-1)! as HistoryEntry;
    expect(accepted.documents.map((document) => document.contentType)).toEqual(['application/pdf']);
    const list = await partner.follow(`${path}?pageSize=1`);
    expect(list.body.page.totalElements).toBe(101);
    expect(list.body._embedded.documents[0].id).toBe(accepted.documents[0]!.id);
  });
});
