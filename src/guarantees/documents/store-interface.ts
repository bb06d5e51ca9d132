/** What a store of documents' bytes does (postgres-store.ts, s3-store.ts); document-store.ts picks one. */
import type { Readable } from 'node:stream';
import type { Queryable } from '../../database/prisma-client';

export type StoreName = 'postgres' | 's3';

/** Bytes being written under one key, chunk by chunk (each write waits until the store took it). */
export interface StoreWriter {
  write(chunk: Buffer): Promise<void>;
  /** All bytes were written: the key now holds them. */
  end(): Promise<void>;
  /** Stops the write; whatever reached the store stays under the key until `remove`. */
  abort(): Promise<void>;
}

export interface DocumentStore {
  readonly name: StoreName;
  /** Starts writing the bytes of `key` (outside any transaction: each chunk is stored as it comes). */
  writer(key: string): StoreWriter;
  /** Stores small bytes whole (a rendered contract), on `db` (the write's transaction where the store is the database). */
  put(db: Queryable, key: string, bytes: Buffer): Promise<void>;
  /** The bytes of `key`, streamed: a chunk at a time, never the whole document in memory. */
  open(key: string, size: number): Promise<Readable>;
  /** Deletes the bytes of these keys (none may be missing an error). */
  remove(keys: readonly string[]): Promise<void>;
  close(): Promise<void>;
}
