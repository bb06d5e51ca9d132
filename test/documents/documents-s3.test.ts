/**
 * The documents' story with DOCUMENT_STORE_URL set: the bytes in a real S3-protocol server that
 * this file starts (test/support/s3-server.ts), the same suite as PostgreSQL's (document-suite.ts).
 */
import { startS3Server, type S3Server } from '../support/s3-server';
import { documentSuite } from './document-suite';

let s3: S3Server;
beforeAll(async () => {
  s3 = await startS3Server();
}, 60_000);
afterAll(async () => s3?.stop());

const world = documentSuite({
  env: () => ({ DOCUMENT_STORE_URL: s3.storeUrl }),
  storedObjects: () => s3.objectCount(),
});

test('When the store is S3, then no document byte is in PostgreSQL', async () => {
  expect(await world.db.documentChunk.count()).toBe(0);
  expect(await world.db.documentBlob.count({ where: { store: { not: 's3' } } })).toBe(0);
});
