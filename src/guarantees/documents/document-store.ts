/**
 * Where documents' bytes live: PostgreSQL by default (postgres-store.ts, a table of chunks, so that
 * `make start` needs nothing installed), or an S3-compatible object store when DOCUMENT_STORE_URL
 * names one (s3-store.ts). A store only keeps bytes under keys it is given; which document uses
 * which bytes, and which agency owns them, is the database's (document-repository.ts), so that
 * every blob row says in which store its bytes are and an operator can move them (docs/documents.md).
 */
import type { Database } from '../../database/prisma-client';
import { postgresStore } from './postgres-store';
import { s3Store } from './s3-store';
import type { DocumentStore } from './store-interface';

export type { DocumentStore, StoreName, StoreWriter } from './store-interface';

/** The configured store: an S3-compatible one when DOCUMENT_STORE_URL is set, else PostgreSQL. */
export async function documentStore(db: Database, storeUrl: string | undefined): Promise<DocumentStore> {
  return storeUrl ? s3Store(storeUrl) : postgresStore(db);
}

/** Every store a blob row may name, for reads and removals (an operator moving documents has both). */
export interface DocumentStores {
  /** Where new bytes go. */
  current: DocumentStore;
  of(name: string): DocumentStore;
}

export async function documentStores(db: Database, storeUrl: string | undefined): Promise<DocumentStores> {
  const current = await documentStore(db, storeUrl);
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
