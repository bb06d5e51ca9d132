/**
 * The PostgreSQL store (the default): a document's bytes are rows of `document_chunks`, 256 KiB
 * each, in a table of their own, never in a guarantee's rows. Chunk rows rather than large objects:
 * they are ordinary rows (deleted with a plain DELETE, dumped, replicated and vacuumed like any
 * other, reached through the service's database client), whereas large objects live in
 * pg_largeobject outside any table, need lo_unlink (or vacuumlo) to avoid orphans, and their
 * descriptors work only inside a transaction. docs/documents.md says more.
 */
import { Readable } from 'node:stream';
import { bytesQuery, type Database } from '../../database/prisma-client';
import type { DocumentStore, StoreWriter } from './store-interface';

export const CHUNK_BYTES = 256 * 1024;

/**
 * A chunk's bytes go through `bytesQuery` (the pg driver on Prisma's own pool, database layer):
 * as a Buffer parameter, and back as a Buffer. A rendered contract is small and is written in its
 * change's transaction, through Prisma like every other statement of it.
 */
export function postgresStore(db: Database): DocumentStore {
  const insertChunk = (key: string, seq: number, data: Buffer) =>
    bytesQuery(db, 'INSERT INTO document_chunks (storage_key, seq, data) VALUES ($1, $2, $3)', [key, seq, data]);
  return {
    name: 'postgres',
    writer(key: string): StoreWriter {
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      let seq = 0;
      const flush = async (all: boolean) => {
        while (pendingBytes >= CHUNK_BYTES || (all && pendingBytes > 0)) {
          const joined = Buffer.concat(pending);
          const chunk = joined.subarray(0, CHUNK_BYTES);
          const rest = joined.subarray(chunk.length);
          pending = rest.length > 0 ? [rest] : [];
          pendingBytes = rest.length;
          await insertChunk(key, seq++, Buffer.from(chunk));
        }
      };
      return {
        async write(chunk) {
          pending.push(chunk);
          pendingBytes += chunk.length;
          await flush(false);
        },
        end: () => flush(true),
        async abort() {
          pending = [];
          pendingBytes = 0;
        },
      };
    },
    async put(on, key, bytes) {
      for (let offset = 0, seq = 0; offset < bytes.length; offset += CHUNK_BYTES, seq++) {
        await on.$executeRaw`INSERT INTO document_chunks (storage_key, seq, data) VALUES (${key}, ${seq}, ${bytes.subarray(offset, offset + CHUNK_BYTES)})`;
      }
    },
    async open(key, size) {
      const chunks = Math.ceil(size / CHUNK_BYTES);
      let seq = 0;
      // One chunk per read, as the response drains: at most a chunk of this document in memory.
      return new Readable({
        highWaterMark: 1,
        objectMode: false,
        read() {
          if (seq >= chunks) return void this.push(null);
          const current = seq++;
          bytesQuery<{ data: Buffer }>(db, 'SELECT data FROM document_chunks WHERE storage_key = $1 AND seq = $2', [key, current]).then(
            (rows) => {
              const data = rows[0]?.data;
              if (!data) return void this.destroy(new Error(`chunk ${current} of stored document bytes ${key} is missing`));
              this.push(data);
            },
            (error: unknown) => this.destroy(error as Error),
          );
        },
      });
    },
    async remove(keys) {
      if (keys.length > 0) await db.$executeRaw`DELETE FROM document_chunks WHERE storage_key = ANY (${[...keys]}::text[])`;
    },
    async close() {},
  };
}
