/**
 * Where documents' bytes live: PostgreSQL by default (postgres-store.ts, a table of chunks, so that
 * `make start` needs nothing installed), or an S3-compatible object store when DOCUMENT_STORE_URL
 * names one (s3-store.ts). A store only keeps bytes under keys it is given; which document uses
 * which bytes, and which agency owns them, is the database's (document-repository.ts), so that
 * every blob row says in which store its bytes are and an operator can move them (docs/documents.md).
 */
import type { Readable } from 'node:stream';
import type { Database, Queryable } from '../database/prisma-client';
import { postgresStore } from './postgres-store';
import { s3Store } from './s3-store';

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

/** The configured store: an S3-compatible one when DOCUMENT_STORE_URL is set, else PostgreSQL. */
export function documentStore(db: Database, storeUrl: string | undefined): DocumentStore {
  return storeUrl ? s3Store(storeUrl) : postgresStore(db);
}

/** Every store a blob row may name, for reads and removals (an operator moving documents has both). */
export interface DocumentStores {
  /** Where new bytes go. */
  current: DocumentStore;
  of(name: string): DocumentStore;
}

export function documentStores(db: Database, storeUrl: string | undefined): DocumentStores {
  const current = documentStore(db, storeUrl);
  const postgres = current.name === 'postgres' ? current : postgresStore(db);
  return {
    current,
    of(name) {
      if (name === current.name) return current;
      if (name === 'postgres') return postgres;
      throw new Error(`Documents are stored in ${name}, which this process is not configured for (DOCUMENT_STORE_URL)`);
    },
  };
}
