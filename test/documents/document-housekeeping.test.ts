/**
 * Documents' housekeeping (src/guarantees/documents/document-housekeeping.ts), run as scheduler/housekeeping.ts
 * runs it in every process:
 *  - DOCUMENT_RETENTION_DAYS after a guarantee is archived its documents' bytes are deleted: the rows
 *    stay, marked purged (the history keeps names, sizes and digests), a download answers 404, and
 *    bytes another guarantee of the agency still uses are kept;
 *  - a service process killed (SIGKILL) in the middle of an upload leaves its staged bytes and
 *    their record behind; they stay while an upload could still be running, and are deleted once
 *    they are an hour old.
 */
import { documentStores } from '../../src/guarantees/documents/document-store';
import { purgeArchivedDocuments, purgeStaleUploads } from '../../src/guarantees/documents/document-housekeeping';
import { useTestApp } from '../support/test-app';
import { asPartner, type HistoryEntry } from '../support/partner-api';
import { backOffice } from '../support/back-office';
import { binary, chunksOf, documentsPath, openUpload, pdfBytes, sha256Of, upload } from '../support/document-files';
import { startService, stopAllServices } from '../support/service-process';
import { waitFor } from '../support/wait-for';

const world = useTestApp({}, { agencies: 1 });
world.beforeClose(stopAllServices);
const partner = asPartner(world);
const stores = () => documentStores(world.db, undefined);

/** Takes a guarantee without co-tenants from review to archived the way the back office does; its accept's entry holds the contract. */
async function archive(id: number, tenantCpfCnpj: string): Promise<void> {
  const office = backOffice(world);
  await office.approve(id);
  expect((await partner.accept(id)).status).toBe(200);
  await office.envelopeReady(id);
  await office.sign(id, 'document');
  await office.sign(id, 'tenant', tenantCpfCnpj);
  await office.terminate(id);
  await office.archive(id);
  expect((await partner.current(id)).status).toBe('archived');
}

describe('When a guarantee was archived longer ago than the retention', () => {
  test('then its documents bytes are deleted, their rows stay marked purged, downloads are 404, and shared bytes stay', async () => {
    const { id: kept } = await partner.newGuarantee();
    const shared = pdfBytes();
    const own = pdfBytes();
    const { id, tenant } = await partner.newGuarantee({ coTenants: [] });
    const attached = await upload(world, world.agency, documentsPath(id), [
      { bytes: own, name: 'renda.pdf' },
      { bytes: shared, name: 'identidade.pdf' },
    ]);
    expect(attached.status).toBe(201);
    expect((await upload(world, world.agency, documentsPath(kept), [{ bytes: shared, name: 'identidade.pdf' }])).status).toBe(201);
    // The archived guarantee's documents: the two attached and its contract.
    await archive(id, tenant.cpfCnpj!);
    const recent = await partner.newGuarantee({ coTenants: [] });
    await archive(recent.id, recent.tenant.cpfCnpj!);
    const retentionDays = world.config.DOCUMENT_RETENTION_DAYS;

    // Archived just now: nothing is due.
    expect(await purgeArchivedDocuments(world.db, await stores(), retentionDays)).toBe(0);
    await world.db
      .$executeRaw`UPDATE rental_insurances SET updated_at = now() - make_interval(days => ${retentionDays + 1}) WHERE id = ${BigInt(id)}`;
    const blobsBefore = await world.db.documentBlob.count();

    expect(await purgeArchivedDocuments(world.db, await stores(), retentionDays)).toBe(3);
    expect(await purgeArchivedDocuments(world.db, await stores(), retentionDays)).toBe(0);

    const rows = await world.db.document.findMany({ where: { rentalInsuranceId: BigInt(id) } });
    expect(rows).toHaveLength(3);
    expect(rows.every((row) => row.purgedAt !== null)).toBe(true);
    // Its own file and its contract are gone from the store; the file the other guarantee holds is not.
    expect(await world.db.documentBlob.count()).toBe(blobsBefore - 2);
    expect(
      await world.db.documentBlob.count({
        where: { sha256: { in: [sha256Of(own), rows.find((row) => row.fileName?.startsWith('contract-'))!.sha256] } },
      }),
    ).toBe(0);
    const blobKeys = (await world.db.documentBlob.findMany({ select: { storageKey: true } })).map((blob) => blob.storageKey);
    expect((await world.db.documentChunk.groupBy({ by: ['storageKey'] })).map((chunk) => chunk.storageKey).sort()).toEqual(blobKeys.sort());

    for (const row of rows) {
      const download = await partner.follow(`${documentsPath(id)}/${row.id}`);
      expect([download.status, download.body.code]).toEqual([404, 'not_found']);
    }
    const history = await partner.historyEntries(id);
    const names = history.flatMap((entry: HistoryEntry) => entry.documents.map((document) => [document.fileName, document.sha256]));
    expect(names).toEqual(
      expect.arrayContaining([
        ['renda.pdf', sha256Of(own)],
        ['identidade.pdf', sha256Of(shared)],
      ]),
    );

    const stillShared = (await partner.follow(documentsPath(kept))).body._embedded.documents[0].id as number;
    const download = await binary(partner.follow(`${documentsPath(kept)}/${stillShared}`));
    expect(Buffer.compare(download.body as Buffer, shared)).toBe(0);
    expect((await partner.follow(documentsPath(recent.id))).body.page.totalElements).toBe(1);
    expect(await world.db.document.count({ where: { rentalInsuranceId: BigInt(recent.id), purgedAt: { not: null } } })).toBe(0);
  });
});

describe('When a service process is killed in the middle of an upload', () => {
  test('then its staged bytes stay for an hour, then housekeeping deletes them with their record; kept documents are untouched', async () => {
    const service = await startService(world.databaseUrl);
    const { id } = await partner.newGuarantee();
    const kept = pdfBytes();
    expect((await upload(world, world.agency, documentsPath(id), [{ bytes: kept, name: 'kept.pdf' }])).status).toBe(201);
    const before = { blobs: await world.db.documentBlob.count(), chunks: await world.db.documentChunk.count() };

    const sending = openUpload(service.origin, world.agency, documentsPath(id));
    sending.fileHeader('interrupted.pdf');
    sending.write(pdfBytes());
    for (const chunk of chunksOf(2 * 1024 * 1024)) sending.write(chunk);
    sending.answer.catch(() => undefined);
    // Some of its chunks are in the store when the process dies.
    const staged = await waitFor(
      async () => ({ uploads: await world.db.documentUpload.count(), chunks: await world.db.documentChunk.count() }),
      (now) => now.uploads === 1 && now.chunks > before.chunks,
      { withinMs: 60_000 },
    );
    expect(staged.uploads).toBe(1);
    await service.kill('SIGKILL');
    sending.destroy();

    expect(await purgeStaleUploads(world.db, await stores())).toBe(0);
    expect(await world.db.documentUpload.count()).toBe(1);
    const anHourLater = new Date(Date.now() + 61 * 60_000);
    expect(await purgeStaleUploads(world.db, await stores(), anHourLater)).toBe(1);
    expect(await world.db.documentUpload.count()).toBe(0);
    expect({ blobs: await world.db.documentBlob.count(), chunks: await world.db.documentChunk.count() }).toEqual(before);
    const documentId = (await partner.follow(documentsPath(id))).body._embedded.documents[0].id as number;
    expect(Buffer.compare((await binary(partner.follow(`${documentsPath(id)}/${documentId}`))).body as Buffer, kept)).toBe(0);
  }, 180_000);
});
